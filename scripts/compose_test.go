// Package scripts holds structural checks of the deployment files at the
// repository root (docker-compose.yml, Dockerfile) and of the Dgraph test
// tooling under scripts/. Docker is not needed: the files are parsed, not run.
package scripts

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const (
	dgraphImage   = "dgraph/dgraph:v25.0.0"
	zeroService   = "zero"
	serverService = "totalrecall"
)

var alphaServices = []string{"alpha1", "alpha2", "alpha3"}

// repoRoot is the repository root; go test runs in the package directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatalf("resolving repository root: %v", err)
	}
	return root
}

// ---------------------------------------------------------------- compose model

type composeFile struct {
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

type service struct {
	Image       string       `yaml:"image"`
	Build       yaml.Node    `yaml:"build"`
	Command     yaml.Node    `yaml:"command"`
	Ports       []yaml.Node  `yaml:"ports"`
	Volumes     []yaml.Node  `yaml:"volumes"`
	DependsOn   yaml.Node    `yaml:"depends_on"`
	Healthcheck *healthcheck `yaml:"healthcheck"`
}

type healthcheck struct {
	Test    yaml.Node `yaml:"test"`
	Disable bool      `yaml:"disable"`
}

type port struct {
	HostIP    string
	Published string
	Target    string
}

type mount struct {
	Type   string // "volume" or "bind"
	Source string
	Target string
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	path := filepath.Join(repoRoot(t), "docker-compose.yml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(data, &cf); err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	if len(cf.Services) == 0 {
		t.Fatalf("%s declares no services", path)
	}
	return cf
}

func mustService(t *testing.T, cf composeFile, name string) service {
	t.Helper()
	svc, ok := cf.Services[name]
	if !ok {
		t.Fatalf("service %q is missing from docker-compose.yml (have %v)", name, serviceNames(cf))
	}
	return svc
}

func serviceNames(cf composeFile) []string {
	names := make([]string, 0, len(cf.Services))
	for n := range cf.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// argv returns a command as a list of arguments, whether it was written as a
// YAML list or as one string (split like a shell would, honouring quotes).
func argv(t *testing.T, n yaml.Node) []string {
	t.Helper()
	switch n.Kind {
	case 0:
		return nil
	case yaml.ScalarNode:
		return splitShell(n.Value)
	case yaml.SequenceNode:
		var out []string
		if err := n.Decode(&out); err != nil {
			t.Fatalf("decoding command list: %v", err)
		}
		return out
	default:
		t.Fatalf("command at line %d is neither a string nor a list", n.Line)
		return nil
	}
}

func splitShell(s string) []string {
	var (
		out   []string
		cur   strings.Builder
		quote rune
		have  bool
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, have = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}

// flagValues returns every value given to flag (as --flag=v or --flag v).
func flagValues(args []string, flag string) []string {
	var vals []string
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			vals = append(vals, v)
		} else if a == flag && i+1 < len(args) {
			vals = append(vals, args[i+1])
		}
	}
	return vals
}

// dependsOn maps each dependency to its condition ("service_started" for the
// short list form).
func dependsOn(t *testing.T, n yaml.Node) map[string]string {
	t.Helper()
	deps := map[string]string{}
	switch n.Kind {
	case 0:
	case yaml.SequenceNode:
		var names []string
		if err := n.Decode(&names); err != nil {
			t.Fatalf("decoding depends_on list: %v", err)
		}
		for _, name := range names {
			deps[name] = "service_started"
		}
	case yaml.MappingNode:
		var long map[string]struct {
			Condition string `yaml:"condition"`
		}
		if err := n.Decode(&long); err != nil {
			t.Fatalf("decoding depends_on map: %v", err)
		}
		for name, d := range long {
			c := d.Condition
			if c == "" {
				c = "service_started"
			}
			deps[name] = c
		}
	default:
		t.Fatalf("depends_on at line %d is neither a list nor a map", n.Line)
	}
	return deps
}

func ports(t *testing.T, nodes []yaml.Node) []port {
	t.Helper()
	var out []port
	for _, n := range nodes {
		switch n.Kind {
		case yaml.ScalarNode:
			spec, _, _ := strings.Cut(n.Value, "/")
			parts := strings.Split(spec, ":")
			p := port{Target: parts[len(parts)-1]}
			switch len(parts) {
			case 2:
				p.Published = parts[0]
			case 3:
				p.HostIP, p.Published = parts[0], parts[1]
			}
			out = append(out, p)
		case yaml.MappingNode:
			var long struct {
				HostIP    string `yaml:"host_ip"`
				Published string `yaml:"published"`
				Target    string `yaml:"target"`
			}
			if err := n.Decode(&long); err != nil {
				t.Fatalf("decoding port at line %d: %v", n.Line, err)
			}
			out = append(out, port{HostIP: long.HostIP, Published: long.Published, Target: long.Target})
		default:
			t.Fatalf("port at line %d is neither a string nor a map", n.Line)
		}
	}
	return out
}

func mounts(t *testing.T, nodes []yaml.Node) []mount {
	t.Helper()
	var out []mount
	for _, n := range nodes {
		switch n.Kind {
		case yaml.ScalarNode:
			parts := strings.Split(n.Value, ":")
			m := mount{Type: "volume", Target: parts[0]}
			if len(parts) >= 2 {
				m.Source, m.Target = parts[0], parts[1]
				if strings.HasPrefix(m.Source, ".") || strings.HasPrefix(m.Source, "/") || strings.HasPrefix(m.Source, "~") {
					m.Type = "bind"
				}
			} else {
				m.Source = "" // anonymous volume
			}
			out = append(out, m)
		case yaml.MappingNode:
			var long struct {
				Type   string `yaml:"type"`
				Source string `yaml:"source"`
				Target string `yaml:"target"`
			}
			if err := n.Decode(&long); err != nil {
				t.Fatalf("decoding volume at line %d: %v", n.Line, err)
			}
			out = append(out, mount{Type: long.Type, Source: long.Source, Target: long.Target})
		default:
			t.Fatalf("volume at line %d is neither a string nor a map", n.Line)
		}
	}
	return out
}

func healthTest(t *testing.T, hc *healthcheck) string {
	t.Helper()
	if hc == nil || hc.Disable {
		return ""
	}
	switch hc.Test.Kind {
	case yaml.ScalarNode:
		return hc.Test.Value
	case yaml.SequenceNode:
		var parts []string
		if err := hc.Test.Decode(&parts); err != nil {
			t.Fatalf("decoding healthcheck test: %v", err)
		}
		if len(parts) > 0 && parts[0] == "NONE" {
			return ""
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// ---------------------------------------------------------------- compose tests

func TestComposeServicesExist(t *testing.T) {
	cf := loadCompose(t)
	for _, name := range append([]string{zeroService, serverService}, alphaServices...) {
		t.Run(name, func(t *testing.T) {
			if _, ok := cf.Services[name]; !ok {
				t.Errorf("service %q is missing from docker-compose.yml (have %v)", name, serviceNames(cf))
			}
		})
	}
}

func TestComposeZero(t *testing.T) {
	cf := loadCompose(t)
	zero := mustService(t, cf, zeroService)
	args := argv(t, zero.Command)

	tests := []struct {
		name  string
		check func() error
	}{
		{"image is Dgraph v25.0.0", func() error {
			if zero.Image != dgraphImage {
				return fmt.Errorf("image = %q, want %q", zero.Image, dgraphImage)
			}
			return nil
		}},
		{"runs dgraph zero", func() error {
			if len(args) < 2 || args[0] != "dgraph" || args[1] != "zero" {
				return fmt.Errorf("command = %q, want it to start with \"dgraph zero\"", args)
			}
			return nil
		}},
		{"--replicas 3 matching the alphas", func() error {
			vals := flagValues(args, "--replicas")
			if len(vals) != 1 {
				return fmt.Errorf("want exactly one --replicas flag, command = %q", args)
			}
			n, err := strconv.Atoi(vals[0])
			if err != nil || n != 3 {
				return fmt.Errorf("--replicas = %q, want 3", vals[0])
			}
			if n != len(alphaServices) {
				return fmt.Errorf("--replicas %d but %d alpha services", n, len(alphaServices))
			}
			return nil
		}},
		{"--my is zero:5080", func() error {
			if vals := flagValues(args, "--my"); !slices.Equal(vals, []string{zeroService + ":5080"}) {
				return fmt.Errorf("--my = %q, want [%s:5080]", vals, zeroService)
			}
			return nil
		}},
		{"health check on :6080/health", func() error {
			if hc := healthTest(t, zero.Healthcheck); !strings.Contains(hc, "localhost:6080/health") {
				return fmt.Errorf("healthcheck test = %q, want a request to http://localhost:6080/health", hc)
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.check(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestComposeAlphas(t *testing.T) {
	cf := loadCompose(t)
	for _, name := range alphaServices {
		t.Run(name, func(t *testing.T) {
			alpha := mustService(t, cf, name)
			args := argv(t, alpha.Command)
			deps := dependsOn(t, alpha.DependsOn)

			tests := []struct {
				name  string
				check func() error
			}{
				{"image is Dgraph v25.0.0", func() error {
					if alpha.Image != dgraphImage {
						return fmt.Errorf("image = %q, want %q", alpha.Image, dgraphImage)
					}
					return nil
				}},
				{"runs dgraph alpha", func() error {
					if len(args) < 2 || args[0] != "dgraph" || args[1] != "alpha" {
						return fmt.Errorf("command = %q, want it to start with \"dgraph alpha\"", args)
					}
					return nil
				}},
				{"--zero points at zero:5080", func() error {
					if vals := flagValues(args, "--zero"); !slices.Equal(vals, []string{zeroService + ":5080"}) {
						return fmt.Errorf("--zero = %q, want [%s:5080]", vals, zeroService)
					}
					return nil
				}},
				{"--my is its own name:7080", func() error {
					if vals := flagValues(args, "--my"); !slices.Equal(vals, []string{name + ":7080"}) {
						return fmt.Errorf("--my = %q, want [%s:7080]", vals, name)
					}
					return nil
				}},
				{"--security whitelist is set", func() error {
					vals := flagValues(args, "--security")
					if len(vals) != 1 || !strings.Contains(vals[0], "whitelist=") {
						return fmt.Errorf("--security = %q, want a whitelist= option", vals)
					}
					return nil
				}},
				{"depends on zero being healthy", func() error {
					if c := deps[zeroService]; c != "service_healthy" {
						return fmt.Errorf("depends_on[%s] condition = %q, want service_healthy", zeroService, c)
					}
					return nil
				}},
				{"health check on :8080/health", func() error {
					if hc := healthTest(t, alpha.Healthcheck); !strings.Contains(hc, "localhost:8080/health") {
						return fmt.Errorf("healthcheck test = %q, want a request to http://localhost:8080/health", hc)
					}
					return nil
				}},
				{"keeps its data in its own named volume", func() error {
					for _, m := range mounts(t, alpha.Volumes) {
						if m.Type == "volume" && m.Source != "" && m.Target == "/dgraph" {
							if m.Source == zeroService || (m.Source != name && slices.Contains(alphaServices, m.Source)) {
								return fmt.Errorf("volume %q is shared with another service", m.Source)
							}
							return nil
						}
					}
					return fmt.Errorf("no named volume mounted at /dgraph (volumes: %+v)", mounts(t, alpha.Volumes))
				}},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					if err := tc.check(); err != nil {
						t.Error(err)
					}
				})
			}
		})
	}
}

func TestComposeTotalrecall(t *testing.T) {
	cf := loadCompose(t)
	svc := mustService(t, cf, serverService)
	args := argv(t, svc.Command)
	deps := dependsOn(t, svc.DependsOn)
	storeRE := regexp.MustCompile(`^dgraph://(alpha[0-9]+):9080$`)

	tests := []struct {
		name  string
		check func() error
	}{
		{"command is serve", func() error {
			if len(args) == 0 || args[0] != "serve" {
				return fmt.Errorf("command = %q, want it to start with \"serve\" (the image's entrypoint is totalrecall)", args)
			}
			return nil
		}},
		{"listens on 0.0.0.0:8080", func() error {
			if vals := flagValues(args, "--addr"); !slices.Equal(vals, []string{"0.0.0.0:8080"}) {
				return fmt.Errorf("--addr = %q, want [0.0.0.0:8080]", vals)
			}
			return nil
		}},
		{"--store is an alpha's gRPC port", func() error {
			vals := flagValues(args, "--store")
			if len(vals) != 1 {
				return fmt.Errorf("want exactly one --store flag, command = %q", args)
			}
			m := storeRE.FindStringSubmatch(vals[0])
			if m == nil {
				return fmt.Errorf("--store = %q, want dgraph://alphaN:9080", vals[0])
			}
			if !slices.Contains(alphaServices, m[1]) {
				return fmt.Errorf("--store names %q, which is not one of the alpha services %v", m[1], alphaServices)
			}
			return nil
		}},
		{"builds from the Dockerfile at the root", func() error {
			context, dockerfile := ".", "Dockerfile"
			switch svc.Build.Kind {
			case yaml.ScalarNode:
				context = svc.Build.Value
			case yaml.MappingNode:
				var b struct {
					Context    string `yaml:"context"`
					Dockerfile string `yaml:"dockerfile"`
				}
				if err := svc.Build.Decode(&b); err != nil {
					return fmt.Errorf("decoding build: %v", err)
				}
				if b.Context != "" {
					context = b.Context
				}
				if b.Dockerfile != "" {
					dockerfile = b.Dockerfile
				}
			default:
				return fmt.Errorf("service has no build section")
			}
			if filepath.Clean(context) != "." {
				return fmt.Errorf("build context = %q, want the repository root \".\"", context)
			}
			if dockerfile != "Dockerfile" {
				return fmt.Errorf("build dockerfile = %q, want Dockerfile", dockerfile)
			}
			if _, err := os.Stat(filepath.Join(repoRoot(t), context, dockerfile)); err != nil {
				return fmt.Errorf("build points at a missing Dockerfile: %v", err)
			}
			return nil
		}},
		{"publishes 8080", func() error {
			for _, p := range ports(t, svc.Ports) {
				if p.Target == "8080" && p.Published != "" {
					return nil
				}
			}
			return fmt.Errorf("no published port with container port 8080 (ports: %+v)", ports(t, svc.Ports))
		}},
		{"depends on every alpha being healthy", func() error {
			var bad []string
			for _, a := range alphaServices {
				if deps[a] != "service_healthy" {
					bad = append(bad, fmt.Sprintf("%s=%q", a, deps[a]))
				}
			}
			if len(bad) > 0 {
				return fmt.Errorf("depends_on conditions %v, want service_healthy for each alpha", bad)
			}
			return nil
		}},
		{"health check on :8080/healthz", func() error {
			if hc := healthTest(t, svc.Healthcheck); !strings.Contains(hc, "localhost:8080/healthz") {
				return fmt.Errorf("healthcheck test = %q, want a request to http://localhost:8080/healthz", hc)
			}
			return nil
		}},
		{"keeps /data in a named volume", func() error {
			for _, m := range mounts(t, svc.Volumes) {
				if m.Type == "volume" && m.Source != "" && m.Target == "/data" {
					return nil
				}
			}
			return fmt.Errorf("no named volume mounted at /data (volumes: %+v)", mounts(t, svc.Volumes))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.check(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestComposeEveryServiceHasHealthcheck(t *testing.T) {
	cf := loadCompose(t)
	for _, name := range serviceNames(cf) {
		t.Run(name, func(t *testing.T) {
			if hc := healthTest(t, cf.Services[name].Healthcheck); hc == "" {
				t.Errorf("service %q has no (enabled) healthcheck test", name)
			}
		})
	}
}

func TestComposeVolumes(t *testing.T) {
	cf := loadCompose(t)
	used := map[string][]string{} // volume -> services
	for _, name := range serviceNames(cf) {
		for _, m := range mounts(t, cf.Services[name].Volumes) {
			if m.Type == "volume" && m.Source != "" {
				used[m.Source] = append(used[m.Source], name)
			}
		}
	}
	t.Run("declared volumes are used", func(t *testing.T) {
		if len(cf.Volumes) == 0 {
			t.Fatal("no top-level volumes declared")
		}
		for v := range cf.Volumes {
			if len(used[v]) == 0 {
				t.Errorf("top-level volume %q is not mounted by any service", v)
			}
		}
	})
	t.Run("used volumes are declared", func(t *testing.T) {
		for v, svcs := range used {
			if _, ok := cf.Volumes[v]; !ok {
				t.Errorf("volume %q (used by %v) is not declared at top level", v, svcs)
			}
		}
	})
	t.Run("no volume is shared", func(t *testing.T) {
		for v, svcs := range used {
			if len(svcs) > 1 {
				t.Errorf("volume %q is mounted by several services %v", v, svcs)
			}
		}
	})
}

func TestComposeHostPortsDoNotClash(t *testing.T) {
	cf := loadCompose(t)
	owner := map[string]string{}
	for _, name := range serviceNames(cf) {
		for _, p := range ports(t, cf.Services[name].Ports) {
			if p.Published == "" {
				continue
			}
			if prev, ok := owner[p.Published]; ok {
				t.Errorf("host port %s is published by both %q and %q", p.Published, prev, name)
			}
			owner[p.Published] = name
		}
	}
	if got := owner["8080"]; got != serverService {
		t.Errorf("host port 8080 belongs to %q, want %q", got, serverService)
	}
}

// ---------------------------------------------------------------- Dockerfile

// dockerInstructions returns the Dockerfile's instructions with line
// continuations joined and comments dropped.
func dockerInstructions(t *testing.T) []string {
	t.Helper()
	path := filepath.Join(repoRoot(t), "Dockerfile")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer f.Close()
	var (
		out []string
		cur strings.Builder
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if s, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(line)
		out = append(out, cur.String())
		cur.Reset()
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func TestDockerfile(t *testing.T) {
	ins := dockerInstructions(t)
	with := func(keyword string) []string {
		var r []string
		for _, in := range ins {
			if strings.HasPrefix(strings.ToUpper(in), keyword+" ") {
				r = append(r, in)
			}
		}
		return r
	}
	anyContains := func(list []string, subs ...string) bool {
		for _, s := range list {
			ok := true
			for _, sub := range subs {
				ok = ok && strings.Contains(s, sub)
			}
			if ok {
				return true
			}
		}
		return false
	}

	tests := []struct {
		name  string
		check func() error
	}{
		{"multi-stage build on golang:1.26", func() error {
			froms := with("FROM")
			if len(froms) < 2 {
				return fmt.Errorf("want at least two FROM stages, got %q", froms)
			}
			if !strings.Contains(froms[0], "golang:1.26") {
				return fmt.Errorf("first stage = %q, want a golang:1.26 image", froms[0])
			}
			return nil
		}},
		{"builds ./cmd/totalrecall", func() error {
			if !anyContains(with("RUN"), "go build", "./cmd/totalrecall") {
				return fmt.Errorf("no RUN instruction runs go build ./cmd/totalrecall")
			}
			return nil
		}},
		{"cgo is disabled", func() error {
			if !anyContains(append(with("ENV"), with("RUN")...), "CGO_ENABLED=0") {
				return fmt.Errorf("CGO_ENABLED=0 is set neither by ENV nor in the build command")
			}
			return nil
		}},
		{"runtime stage copies the binary from the build stage", func() error {
			if !anyContains(with("COPY"), "--from=", "totalrecall") {
				return fmt.Errorf("no COPY --from=<build stage> of the totalrecall binary")
			}
			return nil
		}},
		{"exposes 8080", func() error {
			if !anyContains(with("EXPOSE"), "8080") {
				return fmt.Errorf("no EXPOSE 8080")
			}
			return nil
		}},
		{"entrypoint runs totalrecall serve on 0.0.0.0:8080", func() error {
			ep, cmd := with("ENTRYPOINT"), with("CMD")
			if len(ep) == 0 || !strings.Contains(ep[len(ep)-1], "totalrecall") {
				return fmt.Errorf("ENTRYPOINT = %q, want the totalrecall binary", ep)
			}
			all := ep[len(ep)-1]
			if len(cmd) > 0 {
				all += " " + cmd[len(cmd)-1]
			}
			if !strings.Contains(all, "serve") || !strings.Contains(all, "0.0.0.0:8080") {
				return fmt.Errorf("ENTRYPOINT+CMD = %q, want serve --addr 0.0.0.0:8080", all)
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.check(); err != nil {
				t.Error(err)
			}
		})
	}
}

// ---------------------------------------------------------------- Dgraph tooling

func TestDgraphTooling(t *testing.T) {
	root := repoRoot(t)
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatalf("reading %s: %v", rel, err)
		}
		return string(b)
	}

	t.Run("scripts/dgraph pins Dgraph v25.0.0", func(t *testing.T) {
		mod := read("scripts/dgraph/go.mod")
		if !regexp.MustCompile(`(?m)^\s*(require\s+)?github\.com/hypermodeinc/dgraph/v25 v25\.0\.0\s*$`).MatchString(mod) {
			t.Errorf("scripts/dgraph/go.mod does not require github.com/hypermodeinc/dgraph/v25 v25.0.0")
		}
		sum := read("scripts/dgraph/go.sum")
		if !strings.Contains(sum, "github.com/hypermodeinc/dgraph/v25 v25.0.0 h1:") {
			t.Errorf("scripts/dgraph/go.sum has no checksum for github.com/hypermodeinc/dgraph/v25 v25.0.0")
		}
	})

	t.Run("cache and data folders are git-ignored", func(t *testing.T) {
		lines := strings.Split(read(".gitignore"), "\n")
		for _, want := range []string{".cache/", "data/"} {
			found := false
			for _, l := range lines {
				if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "/")) == want {
					found = true
				}
			}
			if !found {
				t.Errorf(".gitignore has no %q line", want)
			}
		}
	})

	t.Run("dgraph-cluster.sh parses", func(t *testing.T) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("bash not installed")
		}
		out, err := exec.Command(bash, "-n", filepath.Join(root, "scripts", "dgraph-cluster.sh")).CombinedOutput()
		if err != nil {
			t.Errorf("bash -n scripts/dgraph-cluster.sh: %v\n%s", err, out)
		}
	})
}
