// Lists the npm packages whose code is in the embedded assets: name, version, licence, and the
// licence text of each distinct package (from package-lock.json and node_modules).
const fs = require('fs');
const path = require('path');
const lock = JSON.parse(fs.readFileSync(path.join(__dirname, 'package-lock.json'), 'utf8'));
const rows = [];
for (const [p, info] of Object.entries(lock.packages)) {
  if (!p || info.dev || p.includes('esbuild')) continue;
  const name = p.replace(/^.*node_modules\//, '');
  rows.push({ name, version: info.version, license: info.license || 'see package', dir: p });
}
rows.sort((a, b) => a.name.localeCompare(b.name));
const out = [];
out.push('Third-party code in web/assets (built by scripts/web/build.sh from scripts/web/package-lock.json).');
out.push('web/assets/vendor/cytoscape.min.js is cytoscape as published; web/assets/playground/ bundles the rest.');
out.push('');
for (const r of rows) out.push(`${r.name} ${r.version} — ${r.license}`);
out.push('');
for (const r of rows) {
  const dir = path.join(__dirname, r.dir);
  const lic = fs.existsSync(dir) && fs.readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  if (!lic) continue;
  out.push('==== ' + r.name + ' ' + r.version + ' ====');
  out.push(fs.readFileSync(path.join(dir, lic), 'utf8').trim());
  out.push('');
}
process.stdout.write(out.join('\n') + '\n');
