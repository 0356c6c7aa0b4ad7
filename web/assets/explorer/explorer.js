// totalrecall explorer: a scope's graph in the browser, through the public GraphQL API only.
// Served by the binary with every asset embedded (cytoscape vendored), so it works offline.
// window.totalrecallExplorer.state() → {nodes, edges, selected} is the hook for tests.
(function () {
  'use strict';

  // ---------- constants ----------
  const ASSOC = ['TEMPORAL', 'CAUSAL', 'THEMATIC', 'EMOTIONAL', 'PERSON'];
  const ASSOC_COLOUR = { TEMPORAL: '#94a3b8', CAUSAL: '#f87171', THEMATIC: '#60a5fa', EMOTIONAL: '#f472b6', PERSON: '#fbbf24' };
  const EDGE_KINDS = [
    ['EPISODE_MEMBER', 'episode membership', '#f59e0b'],
    ['FACET', 'facets', '#ec4899'],
    ['REFERENCE', 'references', '#10b981'],
    ['CONSOLIDATION', 'consolidation', '#a78bfa'],
  ];
  const NODE_KINDS = [
    ['MEMORY', 'memories', '#60a5fa', 'ellipse'],
    ['EPISODE', 'episodes', '#f59e0b', 'round-rectangle'],
    ['FACET', 'facets', '#ec4899', 'diamond'],
    ['KNOWLEDGE', 'knowledge', '#10b981', 'hexagon'],
    ['SKILL', 'skills', '#a855f7', 'star'],
    ['WORKING_STATE', 'working state', '#64748b', 'tag'],
    ['AGENT_KERNEL', 'agent kernel', '#ef4444', 'octagon'],
    ['WORLD_KERNEL', 'world kernel', '#f97316', 'octagon'],
    ['AGENT_MESSAGE', 'agent messages', '#06b6d4', 'round-triangle'],
    ['REMOVED', 'removed', '#475569', 'vee'],
  ];
  const TIERS = [
    ['IDENTITY_CORE', 'identity core', '#c084fc'],
    ['ACTIVE_CONTEXT', 'active context', '#2dd4bf'],
    ['LONG_TERM', 'long term', '#60a5fa'],
    ['ARCHIVE', 'archive', '#94a3b8'],
  ];
  const KIND_COLOUR = Object.fromEntries(NODE_KINDS.map((k) => [k[0], k[2]]));
  const KIND_SHAPE = Object.fromEntries(NODE_KINDS.map((k) => [k[0], k[3]]));
  const TIER_COLOUR = Object.fromEntries(TIERS.map((t) => [t[0], t[2]]));
  const EDGE_COLOUR = Object.fromEntries(EDGE_KINDS.map((k) => [k[0], k[2]]));
  const KEY = 'totalrecall.key';

  const NODE_FIELDS = 'id kind label tier salience state occurredAt';
  const EDGE_FIELDS = 'source target kind type strength';
  const SUBGRAPH = `nodes { ${NODE_FIELDS} } edges { ${EDGE_FIELDS} } truncated`;

  // ---------- tiny helpers ----------
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const fmtTime = (t) => (t ? new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–');
  const fmtDay = (ms) => (ms == null ? '–' : new Date(ms).toISOString().slice(0, 10));
  const pct = (x) => (x == null ? '–' : (x * 100).toFixed(0) + '%');
  const short = (id) => (id ? id.slice(0, 8) : '');
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  // ---------- API: GraphQL over HTTP, the key of this tab on every request ----------
  const endpoint = new URL(document.querySelector('meta[name="totalrecall-graphql"]').content, location.href).href;
  const wsEndpoint = endpoint.replace(/^http/, 'ws');
  const key = () => sessionStorage.getItem(KEY) || '';

  class ApiError extends Error {
    constructor(code, message, field) {
      super(message);
      this.code = code || 'INTERNAL';
      this.field = field || '';
    }
  }

  let inflight = 0;
  function busy(delta) {
    inflight += delta;
    $('progress').classList.toggle('on', inflight > 0);
  }

  let keyPrompt = null;
  function askKey() {
    if (keyPrompt) return keyPrompt;
    keyPrompt = new Promise((resolve) => {
      const dlg = $('keydialog');
      const input = $('keyinput');
      input.value = '';
      const done = (v) => {
        dlg.close();
        keyPrompt = null;
        resolve(v);
      };
      $('keyform').onsubmit = (e) => {
        e.preventDefault();
        const v = input.value.trim();
        if (v) sessionStorage.setItem(KEY, v);
        done(v);
      };
      $('keycancel').onclick = () => done('');
      dlg.showModal();
      input.focus();
    });
    return keyPrompt;
  }

  async function gql(query, variables, attempt = 0) {
    busy(1);
    let res, body;
    try {
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
      if (key()) headers.Authorization = 'Bearer ' + key();
      res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      body = await res.json().catch(() => null);
    } catch (e) {
      throw new ApiError('UNAVAILABLE', 'the server does not answer: ' + e.message);
    } finally {
      busy(-1);
    }
    const first = body && body.errors && body.errors[0];
    const code = first && first.extensions && first.extensions.code;
    if (res.status === 401 || code === 'UNAUTHENTICATED') {
      if (attempt === 0 && (await askKey())) {
        live.restart();
        return gql(query, variables, 1);
      }
      throw new ApiError('UNAUTHENTICATED', 'this server wants an API key');
    }
    if (first) throw new ApiError(code, first.message, first.extensions && first.extensions.field);
    if (!body || !res.ok) throw new ApiError(res.status >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT', 'HTTP ' + res.status);
    return body.data;
  }

  // ---------- live: memoryEvents over graphql-transport-ws ----------
  const live = {
    ws: null,
    scope: '',
    retry: 0,
    timer: null,
    start(scope) {
      this.scope = scope;
      this.retry = 0;
      this.open();
    },
    restart() {
      if (this.scope) this.start(this.scope);
    },
    stop() {
      this.scope = '';
      this.close();
      setLive('off', 'offline');
    },
    close() {
      clearTimeout(this.timer);
      if (this.ws) {
        this.ws.onclose = null;
        try { this.ws.close(1000); } catch (e) { /* closed */ }
        this.ws = null;
      }
    },
    open() {
      this.close();
      const scope = this.scope;
      if (!scope) return;
      setLive('wait', 'connecting');
      const ws = new WebSocket(wsEndpoint, 'graphql-transport-ws');
      this.ws = ws;
      ws.onopen = () => {
        ws.send(JSON.stringify({ type: 'connection_init', payload: key() ? { authorization: 'Bearer ' + key() } : {} }));
      };
      ws.onmessage = (m) => {
        let msg;
        try { msg = JSON.parse(m.data); } catch (e) { return; }
        switch (msg.type) {
          case 'connection_ack':
            this.retry = 0;
            ws.send(JSON.stringify({
              id: 'events', type: 'subscribe',
              payload: { query: 'subscription($s: ID!) { memoryEvents(scopeId: $s) { seq type memoryId timestamp } }', variables: { s: scope } },
            }));
            setLive('on', 'live');
            break;
          case 'ping':
            ws.send(JSON.stringify({ type: 'pong' }));
            break;
          case 'next':
            if (msg.payload && msg.payload.data && msg.payload.data.memoryEvents) onEvent(msg.payload.data.memoryEvents);
            if (msg.payload && msg.payload.errors) toastError(new ApiError(msg.payload.errors[0].extensions?.code, msg.payload.errors[0].message));
            break;
          case 'error':
            toastError(new ApiError(msg.payload?.[0]?.extensions?.code, 'live updates refused: ' + (msg.payload?.[0]?.message || '')));
            break;
        }
      };
      ws.onclose = async (e) => {
        if (this.ws !== ws || !this.scope) return;
        this.ws = null;
        // 4401/4403: the key was refused; ask for one and try again.
        if ((e.code === 4401 || e.code === 4403) && (await askKey())) return this.open();
        setLive('off', 'reconnecting');
        this.timer = setTimeout(() => this.open(), Math.min(30000, 500 * 2 ** this.retry++));
      };
    },
  };

  function setLive(cls, text) {
    const el = $('live');
    el.className = 'live ' + cls;
    el.textContent = text;
  }

  // ---------- state ----------
  const S = {
    scope: '',
    scopes: [],
    selected: null,
    second: null,
    colourBy: 'tier',
    last: null, // the last neighbourhood asked: {seeds, depth, limit}
    pathMode: false,
    pathEnds: [],
    hits: new Set(),
    time: { min: null, max: null, from: 0, to: 1000 },
  };
  const filters = {
    assoc: new Set(ASSOC),
    edgeKinds: new Set(EDGE_KINDS.map((k) => k[0])),
    nodeKinds: new Set(NODE_KINDS.map((k) => k[0])),
    tiers: new Set(TIERS.map((t) => t[0])),
    minStrength: 0,
    showArchived: false,
  };

  // ---------- the graph ----------
  const cy = cytoscape({
    container: $('cy'),
    // A double click slower than cytoscape's 250 ms default is still a double click.
    multiClickDebounceTime: 450,
    wheelSensitivity: 0.25,
    minZoom: 0.05,
    maxZoom: 4,
    boxSelectionEnabled: false,
    style: [
      { selector: 'node', style: {
        'background-color': 'data(colour)', shape: 'data(shape)', width: 'data(size)', height: 'data(size)',
        label: 'data(short)', color: '#cdd3e1', 'font-size': 9, 'text-valign': 'bottom', 'text-margin-y': 4,
        'text-wrap': 'ellipsis', 'text-max-width': 120, 'min-zoomed-font-size': 7,
        'border-width': 1.5, 'border-color': '#0e1016', 'overlay-opacity': 0,
        'transition-property': 'opacity, background-color, width, height', 'transition-duration': '0.25s',
      } },
      { selector: 'node[?archived]', style: { opacity: 0.35, 'border-style': 'dashed', 'border-color': '#94a3b8' } },
      { selector: 'node.hit', style: { 'border-width': 3, 'border-color': '#fde68a' } },
      { selector: 'node.fresh', style: { 'border-width': 4, 'border-color': '#34d399' } },
      { selector: 'node:selected, node.primary', style: { 'border-width': 4, 'border-color': '#ffffff', 'z-index': 10 } },
      { selector: 'node.secondary', style: { 'border-width': 4, 'border-color': '#7c6cff', 'z-index': 10 } },
      { selector: 'edge', style: {
        width: 'data(width)', 'line-color': 'data(colour)', 'curve-style': 'bezier', opacity: 0.75,
        'target-arrow-shape': 'data(arrow)', 'target-arrow-color': 'data(colour)', 'arrow-scale': 0.7,
        'line-style': 'data(line)', 'overlay-opacity': 0,
      } },
      { selector: '.hidden', style: { display: 'none' } },
      { selector: '.dim', style: { opacity: 0.12 } },
      { selector: 'node.path', style: { 'border-width': 4, 'border-color': '#fde047', opacity: 1 } },
      { selector: 'edge.path', style: { 'line-color': '#fde047', 'target-arrow-color': '#fde047', opacity: 1, width: 6, 'z-index': 9 } },
    ],
  });

  function nodeColour(d) {
    if (S.colourBy === 'tier' && d.kind === 'MEMORY') return TIER_COLOUR[d.tier] || '#60a5fa';
    return KIND_COLOUR[d.kind] || '#9ca3af';
  }

  function nodeData(n) {
    const d = {
      id: n.id, kind: n.kind, label: n.label, tier: n.tier || '', salience: n.salience,
      state: n.state, archived: n.state === 'ARCHIVED' || n.state === 'REMOVED',
      occurredAt: n.occurredAt ? Date.parse(n.occurredAt) : null,
      short: n.label.length > 38 ? n.label.slice(0, 36) + '…' : n.label,
      shape: KIND_SHAPE[n.kind] || 'ellipse',
      size: n.kind === 'MEMORY' ? 16 + 40 * Math.max(0, Math.min(1, n.salience || 0)) : n.kind === 'FACET' ? 14 : 22,
    };
    d.colour = nodeColour(d);
    return d;
  }

  // An association is the same edge read from either end (a path gives it in path order).
  function edgeId(e) {
    const [a, b] = e.kind === 'ASSOCIATION' && e.target < e.source ? [e.target, e.source] : [e.source, e.target];
    return [a, b, e.kind, e.type || ''].join('|');
  }

  function edgeData(e) {
    const assoc = e.kind === 'ASSOCIATION';
    return {
      id: edgeId(e), source: e.source, target: e.target, kind: e.kind, type: e.type || '', strength: e.strength,
      colour: assoc ? ASSOC_COLOUR[e.type] || '#94a3b8' : EDGE_COLOUR[e.kind] || '#64748b',
      width: assoc ? 1 + 5 * (e.strength || 0) : 1.2,
      arrow: assoc || e.kind === 'EPISODE_MEMBER' ? 'none' : 'triangle',
      line: e.kind === 'EPISODE_MEMBER' || e.kind === 'FACET' ? 'dotted' : e.kind === 'CONSOLIDATION' ? 'dashed' : 'solid',
    };
  }

  // merge adds a subgraph to the view (updating nodes already there) and lays out what is new.
  function merge(g, opts = {}) {
    const added = [];
    cy.batch(() => {
      for (const n of g.nodes) {
        const el = cy.getElementById(n.id);
        if (el.nonempty()) {
          el.data(nodeData(n));
          continue;
        }
        if (opts.onlyKnown && !(opts.keep && opts.keep.has(n.id))) continue;
        const near = g.edges.map((e) => (e.source === n.id ? e.target : e.target === n.id ? e.source : null))
          .map((id) => id && cy.getElementById(id)).find((x) => x && x.nonempty());
        const pos = near ? { x: near.position('x') + (Math.random() - 0.5) * 120, y: near.position('y') + (Math.random() - 0.5) * 120 }
          : { x: (Math.random() - 0.5) * 400, y: (Math.random() - 0.5) * 400 };
        added.push(cy.add({ group: 'nodes', data: nodeData(n), position: pos }));
      }
      for (const e of g.edges) {
        const id = edgeId(e);
        const el = cy.getElementById(id);
        if (el.nonempty()) {
          const d = edgeData(e);
          delete d.source;
          delete d.target;
          el.data(d);
        } else if (cy.getElementById(e.source).nonempty() && cy.getElementById(e.target).nonempty()) {
          cy.add({ group: 'edges', data: edgeData(e) });
        }
      }
    });
    if (opts.fresh) {
      for (const n of added) {
        n.addClass('fresh');
        setTimeout(() => n.removeClass('fresh'), 2500);
      }
    }
    refreshTimeBounds();
    applyFilters();
    if (added.length) layout(opts.fit !== false && (opts.fit || cy.nodes().length === added.length));
    return added;
  }

  let layoutRun = null;
  let layingOut = false;
  function layout(fit) {
    if (layoutRun) layoutRun.stop();
    const eles = cy.elements().not('.hidden');
    if (eles.nodes().length === 0) return;
    const big = eles.nodes().length > 400;
    layoutRun = eles.layout({
      name: 'cose', animate: !big, animationDuration: 500, randomize: false, fit: !!fit, padding: 40,
      nodeRepulsion: () => 12000, nodeOverlap: 20, componentSpacing: 60, idealEdgeLength: (e) => (e.data('kind') === 'ASSOCIATION' ? 60 + 80 * (1 - (e.data('strength') || 0)) : 70),
      edgeElasticity: () => 80, gravity: 0.35, numIter: big ? 400 : 1200, nodeDimensionsIncludeLabels: false,
    });
    layingOut = true;
    const run = layoutRun;
    run.one('layoutstop', () => {
      if (layoutRun !== run) return;
      layingOut = false;
      // A handful of nodes is not blown up to fill the screen.
      if (fit && cy.zoom() > 1.6) {
        cy.zoom(1.6);
        cy.center(eles);
      }
    });
    run.run();
  }

  // fitTo brings eles into view without blowing a handful of nodes up to fill the screen.
  function fitTo(eles, padding) {
    if (!eles || eles.empty()) return;
    const bb = eles.boundingBox();
    const w = cy.width() - 2 * padding, h = cy.height() - 2 * padding;
    const zoom = Math.max(cy.minZoom(), Math.min(1.6, w / Math.max(bb.w, 1), h / Math.max(bb.h, 1)));
    const pan = { x: cy.width() / 2 - zoom * (bb.x1 + bb.w / 2), y: cy.height() / 2 - zoom * (bb.y1 + bb.h / 2) };
    cy.animate({ zoom, pan, duration: 300 });
  }

  // ---------- filters ----------
  function applyFilters() {
    const { min, max } = S.time;
    const span = max != null && min != null ? max - min : 0;
    const from = span ? min + (span * S.time.from) / 1000 : -Infinity;
    const to = span ? min + (span * S.time.to) / 1000 : Infinity;
    cy.batch(() => {
      cy.nodes().forEach((n) => {
        const d = n.data();
        let show = filters.nodeKinds.has(d.kind);
        if (show && d.kind === 'MEMORY' && d.tier && !filters.tiers.has(d.tier)) show = false;
        if (show && d.archived && !filters.showArchived && !n.hasClass('primary') && !n.hasClass('path')) show = false;
        if (show && d.occurredAt != null && (d.occurredAt < from - 1 || d.occurredAt > to + 1)) show = false;
        n.toggleClass('hidden', !show);
      });
      cy.edges().forEach((e) => {
        const d = e.data();
        let show = d.kind === 'ASSOCIATION' ? filters.assoc.has(d.type) && (d.strength || 0) >= filters.minStrength : filters.edgeKinds.has(d.kind);
        if (show && (e.source().hasClass('hidden') || e.target().hasClass('hidden'))) show = false;
        e.toggleClass('hidden', !show);
      });
    });
    updateCounts();
  }

  function refreshTimeBounds() {
    let min = null, max = null;
    cy.nodes().forEach((n) => {
      const t = n.data('occurredAt');
      if (t == null) return;
      if (min == null || t < min) min = t;
      if (max == null || t > max) max = t;
    });
    S.time.min = min;
    S.time.max = max;
    timeLabels();
  }

  function timeLabels() {
    const { min, max, from, to } = S.time;
    if (min == null) {
      $('tfromv').textContent = '–';
      $('ttov').textContent = '–';
      return;
    }
    $('tfromv').textContent = fmtDay(min + ((max - min) * from) / 1000);
    $('ttov').textContent = fmtDay(min + ((max - min) * to) / 1000);
  }

  function visible() {
    return { nodes: cy.nodes().not('.hidden'), edges: cy.edges().not('.hidden') };
  }

  function updateCounts() {
    const v = visible();
    const hidden = cy.nodes().length - v.nodes.length;
    $('counts').textContent = `${v.nodes.length} nodes · ${v.edges.length} edges` + (hidden ? ` (${hidden} filtered out)` : '');
    $('empty').hidden = cy.nodes().length > 0;
  }

  function buildFilters() {
    const check = (container, label, colour, checked, onChange, line) => {
      const l = document.createElement('label');
      l.className = 'check';
      l.innerHTML = `<input type="checkbox" ${checked ? 'checked' : ''}><span class="swatch${line ? ' line' : ''}" style="background:${colour}"></span>${esc(label)}`;
      l.querySelector('input').addEventListener('change', (e) => onChange(e.target.checked));
      container.appendChild(l);
    };
    const toggle = (set, v) => (on) => {
      on ? set.add(v) : set.delete(v);
      applyFilters();
    };
    for (const t of ASSOC) check($('assoctypes'), t.toLowerCase(), ASSOC_COLOUR[t], true, toggle(filters.assoc, t), true);
    for (const [k, label, colour] of EDGE_KINDS) check($('edgekinds'), label, colour, true, toggle(filters.edgeKinds, k), true);
    for (const [k, label, colour] of NODE_KINDS) check($('nodekinds'), label, colour, true, toggle(filters.nodeKinds, k));
    for (const [t, label, colour] of TIERS) check($('tiers'), label, colour, true, toggle(filters.tiers, t));
    $('minstrength').addEventListener('input', (e) => {
      filters.minStrength = parseFloat(e.target.value);
      $('minstrengthv').textContent = filters.minStrength.toFixed(2);
      applyFilters();
    });
    $('showarchived').addEventListener('change', (e) => {
      filters.showArchived = e.target.checked;
      applyFilters();
    });
    const onTime = () => {
      let f = +$('tfrom').value, t = +$('tto').value;
      if (f > t) [f, t] = [t, f];
      S.time.from = f;
      S.time.to = t;
      timeLabels();
      applyFilters();
    };
    $('tfrom').addEventListener('input', onTime);
    $('tto').addEventListener('input', onTime);
    let playing = null;
    $('play').addEventListener('click', () => {
      if (playing) {
        clearInterval(playing);
        playing = null;
        $('play').textContent = '▶';
        return;
      }
      $('play').textContent = '❚❚';
      let t = +$('tfrom').value;
      playing = setInterval(() => {
        t += 10;
        if (t > 1000) {
          clearInterval(playing);
          playing = null;
          $('play').textContent = '▶';
          return;
        }
        $('tto').value = t;
        onTime();
      }, 60);
    });
    legend();
  }

  function legend() {
    const items = S.colourBy === 'tier'
      ? TIERS.map(([, l, c]) => [l + ' (memory)', c]).concat(NODE_KINDS.filter((k) => k[0] !== 'MEMORY').slice(0, 5).map((k) => [k[1], k[2]]))
      : NODE_KINDS.slice(0, 8).map((k) => [k[1], k[2]]);
    $('legend').innerHTML = '<h3>Legend</h3>' + items.map(([l, c]) => `<div class="item"><span class="swatch" style="background:${c}"></span>${esc(l)}</div>`).join('') +
      '<div class="item muted">size: salience · width: strength</div>';
  }

  // ---------- loading ----------
  async function loadScopes() {
    const d = await gql('{ scopes { id name createdAt agentKernel { id } worldKernel { id } } }');
    S.scopes = d.scopes;
    const sel = $('scope');
    sel.innerHTML = S.scopes.length ? '' : '<option value="">no scopes yet</option>';
    for (const s of S.scopes) {
      const o = document.createElement('option');
      o.value = s.id;
      o.textContent = `${s.name} · ${short(s.id)}`;
      sel.appendChild(o);
    }
  }

  function clearGraph() {
    cy.elements().remove();
    S.selected = null;
    S.second = null;
    S.hits.clear();
    S.last = null;
    closeDetail();
    $('more').hidden = true;
    updateCounts();
  }

  function setURL() {
    const p = new URLSearchParams();
    if (S.scope) p.set('scope', S.scope);
    const q = $('q').value.trim();
    if (q) p.set('q', q);
    history.replaceState(null, '', location.pathname + (p.toString() ? '?' + p : ''));
  }

  async function selectScope(id, q) {
    if (!id) return;
    S.scope = id;
    $('scope').value = id;
    $('q').value = q || '';
    setURL();
    clearGraph();
    live.start(id);
    await search(q || '');
  }

  async function neighbourhood(seeds, depth, limit) {
    S.last = { seeds, depth, limit };
    const d = await gql(`query($s: ID!, $seeds: [ID!]!, $d: Int, $l: Int) { neighborhood(scopeId: $s, seeds: $seeds, depth: $d, limit: $l) { ${SUBGRAPH} } }`,
      { s: S.scope, seeds, d: depth, l: limit });
    const g = d.neighborhood;
    $('more').hidden = !g.truncated;
    status(g.truncated ? `capped at ${limit} nodes` : '');
    return g;
  }

  // search seeds the view with the hits of the text (or the newest memories without one).
  async function search(q) {
    const scope = S.scope;
    let seeds = [];
    S.hits.clear();
    if (q) {
      const d = await gql('query($s: ID!, $q: String!) { searchArtifacts(scopeId: $s, query: $q, maxResults: 25, includeArchived: true) { family id score } }', { s: scope, q });
      seeds = d.searchArtifacts.map((h) => h.id);
      seeds.forEach((id) => S.hits.add(id));
      status(seeds.length ? `${seeds.length} hits for “${q}”` : `no hits for “${q}”`);
    } else {
      const d = await gql('query($s: ID!) { memories(scopeId: $s, first: 30) { nodes { id } } }', { s: scope });
      seeds = d.memories.nodes.map((m) => m.id);
      if (!seeds.length) {
        const sc = S.scopes.find((s) => s.id === scope);
        if (sc) seeds = [sc.agentKernel.id, sc.worldKernel.id];
      }
    }
    if (scope !== S.scope) return;
    cy.elements().remove();
    if (!seeds.length) {
      updateCounts();
      return;
    }
    const g = await neighbourhood(seeds, q ? 1 : +$('depth').value, +$('limit').value);
    if (scope !== S.scope) return;
    merge(g, { fit: true });
    cy.nodes().removeClass('hit');
    for (const id of S.hits) cy.getElementById(id).addClass('hit');
  }

  async function expand(id) {
    try {
      const g = await neighbourhood([id], +$('depth').value, +$('limit').value);
      const added = merge(g);
      status(`expanded: ${added.length} new nodes` + (g.truncated ? ` (capped at ${$('limit').value})` : ''));
    } catch (e) {
      toastError(e);
    }
  }

  async function showMore() {
    if (!S.last) return;
    const l = Math.min(5000, S.last.limit + +$('limit').value);
    try {
      const g = await neighbourhood(S.last.seeds, S.last.depth, l);
      const added = merge(g);
      status(`${added.length} more nodes` + (g.truncated ? ` (capped at ${l})` : ''));
    } catch (e) {
      toastError(e);
    }
  }

  // ---------- live events ----------
  const pendingEvents = new Map();
  let flushTimer = null;
  let eventsSeen = 0;
  const recentEvents = [];
  function onEvent(ev) {
    eventsSeen++;
    recentEvents.push(ev.type + ':' + short(ev.memoryId));
    if (recentEvents.length > 40) recentEvents.shift();
    if (!ev.memoryId) return;
    const prev = pendingEvents.get(ev.memoryId);
    pendingEvents.set(ev.memoryId, prev && prev !== 'MemoryStored' ? ev.type : prev || ev.type);
    clearTimeout(flushTimer);
    flushTimer = setTimeout(flushEvents, 250);
  }

  const GONE = new Set(['MemoryDeleted', 'ArtifactDeleted', 'ArtifactRemoved', 'Erased']);
  const NEW = new Set(['MemoryStored', 'ArtifactSaved', 'MemoryConsolidated']);
  // Flushes run one at a time: an older answer applied after a newer one would take back what
  // the newer one drew.
  let flushing = Promise.resolve();
  function flushEvents() {
    flushing = flushing.then(flushOnce, flushOnce);
    return flushing;
  }
  let flushRunning = false;
  async function flushOnce() {
    flushRunning = true;
    try {
      await flushBatch();
    } finally {
      flushRunning = false;
    }
  }
  async function flushBatch() {
    flushTimer = null;
    const evs = new Map(pendingEvents);
    pendingEvents.clear();
    const scope = S.scope;
    const seeds = [];
    const fresh = new Set();
    for (const [id, type] of evs) {
      if (GONE.has(type)) {
        cy.getElementById(id).remove();
        continue;
      }
      const known = cy.getElementById(id).nonempty();
      if (NEW.has(type) && !known) fresh.add(id);
      if (known || NEW.has(type)) seeds.push(id);
    }
    if (!seeds.length) {
      updateCounts();
      return;
    }
    try {
      const d = await gql(`query($s: ID!, $seeds: [ID!]!) { neighborhood(scopeId: $s, seeds: $seeds, depth: 1, limit: ${Math.min(5000, seeds.length * 60)}) { ${SUBGRAPH} } }`,
        { s: scope, seeds: seeds.slice(0, 500) });
      if (scope !== S.scope) return;
      const g = d.neighborhood;
      // The edges of the refreshed nodes that are on screen but no longer in the graph go.
      const now = new Set(g.edges.map(edgeId));
      const seedSet = new Set(seeds);
      cy.edges().forEach((e) => {
        if ((seedSet.has(e.data('source')) || seedSet.has(e.data('target'))) && !now.has(e.id()) &&
            g.nodes.some((n) => n.id === e.data('source')) && g.nodes.some((n) => n.id === e.data('target'))) e.remove();
      });
      const added = merge(g, { onlyKnown: true, keep: fresh, fresh: true, fit: false });
      if (added.length) status(`${added.length} new: ${added.map((n) => n.data('short')).join(', ')}`);
      if (S.selected && seedSet.has(S.selected)) showDetail(S.selected, true);
    } catch (e) {
      toastError(e);
    }
  }

  // ---------- selection and detail ----------
  function select(id, additive) {
    if (S.pathMode) return pickPathEnd(id);
    if (additive && S.selected && id !== S.selected) {
      if (S.second) cy.getElementById(S.second).removeClass('secondary');
      S.second = id;
      cy.getElementById(id).addClass('secondary');
      showDetail(S.selected, true);
      return;
    }
    cy.nodes().removeClass('primary secondary');
    S.second = null;
    S.selected = id;
    cy.getElementById(id).addClass('primary');
    showDetail(id);
  }

  function closeDetail() {
    $('detail').hidden = true;
    cy.nodes().removeClass('primary secondary');
    S.selected = null;
    S.second = null;
    cy.resize();
  }

  const DETAIL = `query($s: ID!, $id: ID!, $mem: Boolean!, $art: Boolean!, $ep: Boolean!) {
    graphNode(scopeId: $s, id: $id) {
      node { ${NODE_FIELDS} }
      memory { id content kind tier suggestedTier salience importance claimed claimedAt tags metadata occurredAt createdAt updatedAt accessCount lastAccessedAt state sessionId version }
      knowledge { id type title content tags metadata state createdAt updatedAt version }
      skill { id type title content steps tags metadata state createdAt updatedAt version }
      workingState { id title content metadata sessionId createdAt updatedAt version }
      kernel { id family content updatedAt }
      episode { id threadId channel startTime endTime eventCount definitionId }
    }
    history(memoryId: $id) { seq type timestamp payload context { sessionId requestId messageId causationId timestamp sourceContext } }
    derivedView(artifactId: $id) @include(if: $art) {
      family
      support { supported active lost references { sourceId sourceFamily type sourceState } }
      lineage { events origin { type timestamp } derivedFrom { targetId type targetState } derivatives { sourceId type sourceState } }
      invalidation { valid brokenReferences { targetId type } unhealthyDependencies { targetId type targetState } contradictedBy { sourceId } }
      cleanup { state eligibility candidate removable reasons { code detail } archive { archivedAt reportId restoredAt reasons { code detail } } }
    }
    episodes(scopeId: $s, memoryId: $id) @include(if: $mem) { id threadId startTime eventCount }
    memFacets: facets(scopeId: $s, memoryId: $id) @include(if: $mem) { id type value confidence }
    epFacets: facets(scopeId: $s, episodeId: $id) @include(if: $ep) { id type value confidence memoryId }
  }`;

  const ARTIFACT_KINDS = new Set(['MEMORY', 'KNOWLEDGE', 'SKILL', 'WORKING_STATE', 'AGENT_KERNEL', 'WORLD_KERNEL']);

  async function showDetail(id, quiet) {
    const el = cy.getElementById(id);
    const kind = el.nonempty() ? el.data('kind') : 'MEMORY';
    const panel = $('detail');
    if (panel.hidden) {
      panel.hidden = false;
      cy.resize();
    }
    if (!quiet) $('dbody').innerHTML = '<p class="muted">loading…</p>';
    $('dkind').textContent = kind.replace('_', ' ').toLowerCase();
    let d;
    try {
      d = await gql(DETAIL, { s: S.scope, id, mem: kind === 'MEMORY', art: ARTIFACT_KINDS.has(kind), ep: kind === 'EPISODE' });
    } catch (e) {
      $('dbody').innerHTML = `<p class="bad">${esc(e.code)}: ${esc(e.message)}</p>`;
      return;
    }
    if (S.selected !== id) return;
    if (!d.graphNode) {
      $('dbody').innerHTML = '<p class="muted">This node is no longer in the scope.</p>';
      return;
    }
    // A refresh keeps what the person was choosing in the panel's forms.
    const kept = {};
    $('dbody').querySelectorAll('select[id], input[id]').forEach((el) => (kept[el.id] = el.value));
    $('dbody').innerHTML = renderDetail(d);
    for (const [id, v] of Object.entries(kept)) if ($(id) && [...($(id).options || [{ value: v }])].some((o) => o.value === v)) $(id).value = v;
    wireDetail(d);
  }

  function props(rows) {
    return '<dl class="props">' + rows.filter((r) => r && r[1] !== undefined).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v}</dd>`).join('') + '</dl>';
  }

  function tc(c) {
    return '<div class="tc">' + ['sessionId', 'requestId', 'messageId', 'causationId', 'timestamp', 'sourceContext']
      .map((k) => `<span>${k}</span><span>${esc(c[k])}</span>`).join('') + '</div>';
  }

  function refList(rs, idKey, label) {
    if (!rs || !rs.length) return `<span class="muted">none</span>`;
    return '<ul class="list">' + rs.map((r) => `<li><a data-goto="${esc(r[idKey])}">${esc(nameOf(r[idKey]))}</a><span class="muted">${esc(r.type || '')} ${esc(r[label] || '')}</span></li>`).join('') + '</ul>';
  }

  function nameOf(id) {
    const el = cy.getElementById(id);
    return el.nonempty() ? el.data('short') : short(id);
  }

  function renderDetail(d) {
    const g = d.graphNode;
    const n = g.node;
    const m = g.memory;
    const a = g.knowledge || g.skill || g.workingState;
    let h = '';
    if (m) {
      h += `<div class="content">${esc(m.content)}</div>`;
      h += props([
        ['tier', `${esc(m.tier)}${m.suggestedTier && m.suggestedTier !== m.tier ? ` <span class="muted">(suggested ${esc(m.suggestedTier)})</span>` : ''}`],
        ['salience', `${m.salience.toFixed(3)}<div class="bar"><i style="width:${pct(m.salience)}"></i></div>`],
        ['claimed', m.claimed ? `<span class="ok">yes</span> <span class="muted">${fmtTime(m.claimedAt)}</span>` : 'no'],
        ['state', esc(m.state)],
        ['kind', esc(m.kind)],
        ['occurred', fmtTime(m.occurredAt)],
        ['accessed', `${m.accessCount}× <span class="muted">${m.lastAccessedAt ? fmtTime(m.lastAccessedAt) : ''}</span>`],
        ['importance', m.importance.toFixed(2)],
        ['tags', m.tags.length ? '<div class="tags">' + m.tags.map((t) => `<span class="tag">${esc(t)}</span>`).join('') + '</div>' : '<span class="muted">none</span>'],
        ['id', `<span class="mono">${esc(m.id)}</span>`],
      ]);
      const mk = Object.keys(m.metadata || {}).length;
      h += `<details ${mk && mk <= 4 ? 'open' : ''}><summary>metadata <span>${mk}</span></summary><div class="inner"><pre class="json">${esc(JSON.stringify(m.metadata, null, 2))}</pre></div></details>`;
    } else if (a) {
      h += `<div class="title">${esc(a.title || n.label)}</div>`;
      h += `<div class="content">${esc(a.content)}</div>`;
      h += props([
        a.type && ['type', esc(a.type)], a.state && ['state', esc(a.state)],
        a.steps && a.steps.length && ['steps', '<ol>' + a.steps.map((s) => `<li>${esc(s)}</li>`).join('') + '</ol>'],
        a.tags && ['tags', a.tags.length ? '<div class="tags">' + a.tags.map((t) => `<span class="tag">${esc(t)}</span>`).join('') + '</div>' : '<span class="muted">none</span>'],
        ['updated', fmtTime(a.updatedAt)], ['id', `<span class="mono">${esc(a.id)}</span>`],
      ]);
      h += `<details><summary>metadata</summary><div class="inner"><pre class="json">${esc(JSON.stringify(a.metadata, null, 2))}</pre></div></details>`;
    } else if (g.kernel) {
      h += `<div class="title">${esc(n.label)}</div><div class="content">${esc(g.kernel.content) || '<span class="muted">empty</span>'}</div>`;
      h += props([['updated', fmtTime(g.kernel.updatedAt)], ['id', `<span class="mono">${esc(g.kernel.id)}</span>`]]);
    } else if (g.episode) {
      const e = g.episode;
      h += `<div class="title">${esc(n.label)}</div>`;
      h += props([['thread', esc(e.threadId) || '–'], ['channel', esc(e.channel) || '–'], ['from', fmtTime(e.startTime)], ['to', fmtTime(e.endTime)],
        ['events', e.eventCount], ['id', `<span class="mono">${esc(e.id)}</span>`]]);
    } else {
      h += `<div class="title">${esc(n.label)}</div>` + props([['state', esc(n.state)], ['id', `<span class="mono">${esc(n.id)}</span>`]]);
    }
    h += actions(n, m, a);
    if (S.second) h += secondBox(n);
    if (d.episodes) {
      h += `<details open><summary>episodes <span>${d.episodes.length}</span></summary><div class="inner">` +
        (d.episodes.length ? '<ul class="list">' + d.episodes.map((e) => `<li><a data-goto="${esc(e.id)}">episode · ${fmtTime(e.startTime)}</a><span class="muted">${e.eventCount} events</span></li>`).join('') + '</ul>' : '<span class="muted">none</span>') +
        '</div></details>';
    }
    const facets = d.memFacets || d.epFacets;
    if (facets) {
      h += `<details open><summary>facets <span>${facets.length}</span></summary><div class="inner">` +
        (facets.length ? '<ul class="list">' + facets.map((f) => `<li><a data-goto="${esc(f.id)}">${esc(f.type)}: ${esc(f.value)}</a><span class="muted">${(f.confidence * 100).toFixed(0)}%</span></li>`).join('') + '</ul>' : '<span class="muted">none</span>') +
        '</div></details>';
    }
    const dv = d.derivedView;
    if (dv) {
      const c = dv.cleanup;
      h += `<details><summary>derived view</summary><div class="inner">` +
        props([
          ['support', dv.support.supported ? `<span class="ok">supported</span> · ${dv.support.active} active${dv.support.lost ? `, ${dv.support.lost} lost` : ''}` : '<span class="muted">unsupported</span>'],
          ['lineage', `${dv.lineage.events} events · origin ${esc(dv.lineage.origin ? dv.lineage.origin.type : '–')}`],
          ['derived from', refList(dv.lineage.derivedFrom, 'targetId', 'targetState')],
          ['derivatives', refList(dv.lineage.derivatives, 'sourceId', 'sourceState')],
          ['invalidation', dv.invalidation.valid ? '<span class="ok">valid</span>' : `<span class="bad">invalid</span> · ${dv.invalidation.brokenReferences.length} broken, ${dv.invalidation.unhealthyDependencies.length} unhealthy, ${dv.invalidation.contradictedBy.length} contradicting`],
          ['cleanup', `${esc(c.state)} · ${esc(c.eligibility)}${c.candidate ? ' · <span class="bad">candidate</span>' : ''}${c.removable ? ' · removable' : ''}`],
          c.reasons.length && ['reasons', c.reasons.map((r) => `${esc(r.code)} <span class="muted">${esc(r.detail)}</span>`).join('<br>')],
          c.archive && ['archived', `${fmtTime(c.archive.archivedAt)}${c.archive.restoredAt ? ' · restored ' + fmtTime(c.archive.restoredAt) : ''}`],
          ['supported by', refList(dv.support.references, 'sourceId', 'sourceState')],
        ]) + '</div></details>';
    }
    const hist = d.history.slice().reverse();
    h += `<details ${m ? 'open' : ''}><summary>history <span>${hist.length}</span></summary><div class="inner"><ol class="timeline">` +
      hist.slice(0, 60).map((e) => `<li><div class="ev"><b>${esc(e.type)}</b><span class="when">#${e.seq} · ${fmtTime(e.timestamp)}</span></div>` +
        `<details class="tcx"><summary>TransactionContext</summary>${tc(e.context)}${e.payload ? `<pre class="json">${esc(JSON.stringify(e.payload, null, 2))}</pre>` : ''}</details></li>`).join('') +
      (hist.length > 60 ? `<li class="muted">… ${hist.length - 60} older events</li>` : '') + '</ol></div></details>';
    return h;
  }

  function actions(n, m, a) {
    let h = '<div class="actions">';
    h += `<button data-act="expand" title="Load its neighbourhood (double-click)">Expand</button>`;
    if (m) {
      if (!m.claimed) h += `<button data-act="claim" title="claimMemory: keep it from sinking through the tiers">Claim</button>`;
      h += `<select id="acttier" aria-label="Tier">${TIERS.map(([t]) => `<option ${t === m.tier ? 'selected' : ''}>${t}</option>`).join('')}</select><button data-act="reclassify">Reclassify</button>`;
    }
    const archivable = m || (a && (n.kind === 'KNOWLEDGE' || n.kind === 'SKILL'));
    if (archivable) {
      h += n.state === 'ARCHIVED' ? `<button data-act="restore" title="Put it back in service">Restore</button>`
        : `<button data-act="archive" class="danger" title="runDigest archive: refused unless the digest finds it a candidate">Archive</button>`;
    }
    h += '</div>';
    if (!S.second) h += '<p class="muted" style="font-size:12px">Shift-click a second memory to associate the two or find the path between them.</p>';
    return h;
  }

  function secondBox(n) {
    const other = cy.getElementById(S.second);
    const bothMem = n.kind === 'MEMORY' && other.nonempty() && other.data('kind') === 'MEMORY';
    let h = `<div class="second"><span class="badge">second</span><div class="title">${esc(other.nonempty() ? other.data('label') : short(S.second))}</div>`;
    if (bothMem) {
      h += `<div class="actions"><select id="acttype">${ASSOC.map((t) => `<option>${t}</option>`).join('')}</select>` +
        `<select id="actdir"><option>CREATE</option><option>STRENGTHEN</option><option>WEAKEN</option></select>` +
        `<input id="actstrength" type="number" min="0" max="1" step="0.05" value="0.6" style="width:64px" aria-label="Strength">` +
        `<button data-act="associate" class="primary">Associate</button><button data-act="path">Find path</button></div>`;
    } else {
      h += '<p class="muted">Associations and paths join two memories.</p>';
    }
    return h + '</div>';
  }

  function wireDetail(d) {
    const n = d.graphNode.node;
    const body = $('dbody');
    body.querySelectorAll('[data-goto]').forEach((a) => a.addEventListener('click', () => goTo(a.dataset.goto)));
    body.querySelectorAll('[data-act]').forEach((b) => b.addEventListener('click', () => act(b.dataset.act, n, b)));
  }

  async function goTo(id) {
    if (cy.getElementById(id).empty()) {
      try {
        merge(await neighbourhood([id], 1, +$('limit').value));
      } catch (e) {
        return toastError(e);
      }
    }
    select(id);
    cy.animate({ center: { eles: cy.getElementById(id) }, duration: 300 });
  }

  async function act(what, n, button) {
    const id = n.id;
    button.disabled = true;
    try {
      switch (what) {
        case 'expand':
          await expand(id);
          break;
        case 'claim':
          await gql('mutation($id: ID!) { claimMemory(id: $id) { id claimed } }', { id });
          toast('Claimed.');
          break;
        case 'reclassify': {
          const tier = $('acttier').value;
          await gql('mutation($in: ReclassifyInput!) { reclassifyMemory(input: $in) { id tier } }', { in: { id, tier, reason: 'reclassified in the explorer' } });
          toast(`Moved to ${tier}.`);
          break;
        }
        case 'archive': {
          const r = await gql('mutation($in: DigestInput!) { runDigest(input: $in) { id archived } }', { in: { scopeId: S.scope, archive: [id] } });
          toast(r.runDigest.archived.length ? 'Archived.' : 'The digest archived nothing.');
          break;
        }
        case 'restore': {
          const m = { MEMORY: 'restoreMemory', KNOWLEDGE: 'restoreKnowledge', SKILL: 'restoreSkill' }[n.kind];
          await gql(`mutation($id: ID!) { ${m}(id: $id) { id state } }`, { id });
          toast('Restored.');
          break;
        }
        case 'associate': {
          const input = { sourceId: id, targetId: S.second, type: $('acttype').value, strength: parseFloat($('actstrength').value), direction: $('actdir').value };
          const r = await gql('mutation($in: AssociateInput!) { associateMemories(input: $in) { sourceId targetId type strength } }', { in: input });
          toast(`${r.associateMemories.type} ${r.associateMemories.strength.toFixed(2)}.`);
          break;
        }
        case 'path':
          await findPath(id, S.second);
          break;
      }
      if (what !== 'expand' && what !== 'path') await refreshNodes([id, S.second].filter(Boolean));
    } catch (e) {
      toastError(e);
    } finally {
      button.disabled = false;
    }
  }

  // refreshNodes reads nodes again (and their edges to what is on screen) after an action.
  async function refreshNodes(ids) {
    const g = await gql(`query($s: ID!, $seeds: [ID!]!) { neighborhood(scopeId: $s, seeds: $seeds, depth: 1, limit: 400) { ${SUBGRAPH} } }`, { s: S.scope, seeds: ids });
    merge(g.neighborhood, { onlyKnown: true, fit: false });
    if (S.selected) showDetail(S.selected, true);
  }

  // ---------- path mode ----------
  function setPathMode(on) {
    S.pathMode = on;
    S.pathEnds = [];
    $('pathmode').classList.toggle('active', on);
    banner(on ? 'Path: pick the first memory' : '');
    if (!on) cy.elements().removeClass('dim path');
  }

  function banner(text) {
    $('modebanner').hidden = !text;
    $('modebanner').textContent = text;
  }

  function pickPathEnd(id) {
    if (cy.getElementById(id).data('kind') !== 'MEMORY') return toast('Paths join memories: pick a memory.', true);
    S.pathEnds.push(id);
    cy.getElementById(id).addClass('path');
    if (S.pathEnds.length === 1) return banner('Path: pick the second memory');
    const [a, b] = S.pathEnds;
    S.pathMode = false;
    $('pathmode').classList.remove('active');
    findPath(a, b);
  }

  async function findPath(a, b) {
    banner('Finding the strongest path…');
    try {
      const d = await gql(`query($a: ID!, $b: ID!) { path(fromId: $a, toId: $b, maxDepth: 6) { ${SUBGRAPH} } }`, { a, b });
      const g = d.path;
      cy.elements().removeClass('path dim');
      if (!g.nodes.length) {
        banner('');
        toast(g.truncated ? 'No path found within the search cap.' : 'No path of at most 6 associations joins them.', true);
        return;
      }
      merge(g, { fit: false });
      const ids = new Set(g.nodes.map((n) => n.id));
      const eids = new Set(g.edges.map(edgeId));
      cy.batch(() => {
        cy.elements().addClass('dim');
        cy.nodes().filter((n) => ids.has(n.id())).removeClass('dim').addClass('path');
        cy.edges().filter((e) => eids.has(e.id())).removeClass('dim').addClass('path');
      });
      applyFilters();
      const strength = g.edges.reduce((p, e) => p * (e.strength || 0), 1);
      banner(`Path: ${g.edges.length} associations · strengths ${g.edges.map((e) => e.strength.toFixed(2)).join(' → ')} · product ${strength.toFixed(3)}  (Esc to clear)`);
      fitTo(cy.elements('.path'), 80);
    } catch (e) {
      banner('');
      toastError(e);
    }
  }

  // ---------- exports ----------
  async function download(format) {
    $('exportmenu').hidden = true;
    if (!S.scope) return;
    busy(1);
    try {
      const headers = key() ? { Authorization: 'Bearer ' + key() } : {};
      let res = await fetch(`export/${S.scope}.${format}`, { headers });
      if (res.status === 401 && (await askKey())) res = await fetch(`export/${S.scope}.${format}`, { headers: { Authorization: 'Bearer ' + key() } });
      if (!res.ok) {
        throw new ApiError(res.headers.get('X-Error-Code') || 'UNAVAILABLE', (await res.text()).trim() || 'HTTP ' + res.status);
      }
      const blob = await res.blob();
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `totalrecall-${S.scope}.${format}`;
      document.body.appendChild(a);
      a.click();
      setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
      toast(`Exported the scope as ${format} (${(blob.size / 1024).toFixed(0)} KiB).`);
    } catch (e) {
      toastError(e);
    } finally {
      busy(-1);
    }
  }

  // ---------- feedback ----------
  function status(msg) {
    $('statusmsg').textContent = msg || '';
  }

  function toast(msg, warn) {
    const t = document.createElement('div');
    t.className = 'toast' + (warn ? ' error' : '');
    t.textContent = msg;
    $('toasts').appendChild(t);
    setTimeout(() => t.remove(), 4000);
  }

  let lastError = null;
  function toastError(e) {
    lastError = { code: e.code || 'INTERNAL', message: e.message };
    const t = document.createElement('div');
    t.className = 'toast error';
    t.innerHTML = `<code>${esc(e.code || 'INTERNAL')}</code>${esc(e.message)}${e.field ? ` <span class="muted">(${esc(e.field)})</span>` : ''}`;
    t.dataset.code = e.code || 'INTERNAL';
    $('toasts').appendChild(t);
    setTimeout(() => t.remove(), 7000);
  }

  // ---------- tooltip ----------
  function tooltip(n) {
    const tip = $('tooltip');
    if (!n) {
      tip.hidden = true;
      return;
    }
    const d = n.data();
    const p = n.renderedPosition();
    const meta = [d.kind.toLowerCase().replace('_', ' ')];
    if (d.tier) meta.push(d.tier.toLowerCase().replace('_', ' '));
    if (d.salience != null) meta.push('salience ' + d.salience.toFixed(2));
    if (d.state !== 'ACTIVE') meta.push(d.state.toLowerCase());
    if (d.occurredAt) meta.push(fmtDay(d.occurredAt));
    tip.innerHTML = `<div class="t">${esc(d.label)}</div><div class="m">${esc(meta.join(' · '))}</div>`;
    tip.hidden = false;
    const w = $('stage').clientWidth;
    tip.style.left = Math.min(w - 350, p.x + 14) + 'px';
    tip.style.top = p.y + 14 + 'px';
  }

  // ---------- wiring ----------
  cy.on('tap', 'node', (e) => select(e.target.id(), e.originalEvent && (e.originalEvent.shiftKey || e.originalEvent.metaKey || e.originalEvent.ctrlKey)));
  cy.on('dbltap', 'node', (e) => expand(e.target.id()));
  cy.on('tap', (e) => {
    if (e.target === cy && !S.pathMode) {
      cy.elements().removeClass('dim path');
      banner('');
    }
  });
  cy.on('mouseover', 'node', (e) => tooltip(e.target));
  cy.on('mouseout', 'node', () => tooltip(null));
  cy.on('pan zoom', () => tooltip(null));

  $('scope').addEventListener('change', (e) => selectScope(e.target.value, '').catch(toastError));
  $('search').addEventListener('submit', (e) => {
    e.preventDefault();
    setURL();
    search($('q').value.trim()).catch(toastError);
  });
  $('fit').addEventListener('click', () => fitTo(cy.elements().not('.hidden'), 40));
  $('relayout').addEventListener('click', () => layout(true));
  $('pathmode').addEventListener('click', () => setPathMode(!S.pathMode));
  $('more').addEventListener('click', showMore);
  $('dclose').addEventListener('click', closeDetail);
  $('colourby').addEventListener('change', (e) => {
    S.colourBy = e.target.value;
    cy.batch(() => cy.nodes().forEach((n) => n.data('colour', nodeColour(n.data()))));
    legend();
  });
  $('exportbtn').addEventListener('click', (e) => {
    e.stopPropagation();
    $('exportmenu').hidden = !$('exportmenu').hidden;
  });
  document.addEventListener('click', () => ($('exportmenu').hidden = true));
  $('exportmenu').querySelectorAll('button').forEach((b) => b.addEventListener('click', () => download(b.dataset.format)));
  document.addEventListener('keydown', (e) => {
    const typing = /INPUT|SELECT|TEXTAREA/.test(document.activeElement.tagName);
    if (e.key === 'Escape') {
      if (S.pathMode || $('modebanner').textContent) {
        setPathMode(false);
        cy.elements().removeClass('dim path');
      } else closeDetail();
      return;
    }
    if (typing) return;
    if (e.key === '/') {
      e.preventDefault();
      $('q').focus();
    } else if (e.key === 'f') fitTo(cy.elements().not('.hidden'), 40);
    else if (e.key === 'p') setPathMode(!S.pathMode);
  });

  // The hook for tests (and the curious): what is on screen.
  window.totalrecallExplorer = {
    state() {
      const v = visible();
      return { nodes: v.nodes.length, edges: v.edges.length, selected: S.selected };
    },
    // Where a node is drawn, in page coordinates (to click it like a person would).
    position(id) {
      const n = cy.getElementById(id);
      if (n.empty()) return null;
      const r = $('cy').getBoundingClientRect();
      const p = n.renderedPosition();
      return { x: r.left + p.x, y: r.top + p.y };
    },
    // What else a test waits on: requests in flight, the live socket, the last error shown.
    info() {
      return { busy: inflight + (flushTimer ? 1 : 0) + (flushRunning ? 1 : 0), layout: layingOut, events: eventsSeen, live: $('live').className.includes('on'), lastError, truncated: !$('more').hidden,
        scope: S.scope, second: S.second, path: cy.elements('.path').length, recent: recentEvents.slice() };
    },
    // The edges drawn at a node (hidden ones marked), for a test that wants to say what it saw.
    edgesOf(id) {
      return cy.getElementById(id).connectedEdges().map((e) => e.id() + (e.hasClass('hidden') ? ' (hidden)' : ''));
    },
    // Brings a node to the middle of the view, as a person would pan to it.
    center(id) {
      const n = cy.getElementById(id);
      if (n.nonempty()) cy.center(n);
      return n.nonempty();
    },
    has(id) {
      const n = cy.getElementById(id);
      return n.nonempty() && !n.hasClass('hidden');
    },
  };

  // ---------- start ----------
  buildFilters();
  updateCounts();
  (async () => {
    try {
      await loadScopes();
      const p = new URLSearchParams(location.search);
      const want = p.get('scope');
      const scope = want && S.scopes.some((s) => s.id === want) ? want : S.scopes.length ? S.scopes[0].id : '';
      if (want && scope !== want) toastError(new ApiError('NOT_FOUND', `scope ${want} not found`));
      if (scope) await selectScope(scope, p.get('q') || '');
    } catch (e) {
      toastError(e);
    }
  })();
})();
