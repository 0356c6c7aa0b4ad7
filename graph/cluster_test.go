package graph

import (
	"strings"
	"testing"
)

// TestParseClusterURI reads every option of a dgraph:// store URI without dialing anything.
func TestParseClusterURI(t *testing.T) {
	cases := []struct {
		name string
		uri  string
		want clusterConfig
		err  string // a part of the error; "" when the URI is good
	}{
		{"plain", "dgraph://127.0.0.1:9080", clusterConfig{host: "127.0.0.1:9080", sslMode: "disable"}, ""},
		{"trailing slash", "dgraph://alpha:9080/", clusterConfig{host: "alpha:9080", sslMode: "disable"}, ""},
		{"ipv6", "dgraph://[::1]:9080", clusterConfig{host: "[::1]:9080", sslMode: "disable"}, ""},
		{"sslmode disable", "dgraph://h:9080?sslmode=disable", clusterConfig{host: "h:9080", sslMode: "disable"}, ""},
		{"sslmode require", "dgraph://h:9080?sslmode=require", clusterConfig{host: "h:9080", sslMode: "require"}, ""},
		{"sslmode verify-ca", "dgraph://h:443?sslmode=verify-ca", clusterConfig{host: "h:443", sslMode: "verify-ca"}, ""},
		{"apikey", "dgraph://cloud.example:443?sslmode=verify-ca&apikey=k3y%3D%3D",
			clusterConfig{host: "cloud.example:443", sslMode: "verify-ca", apiKey: "k3y=="}, ""},
		{"bearertoken", "dgraph://h:443?bearertoken=abc.def.ghi&sslmode=require",
			clusterConfig{host: "h:443", sslMode: "require", bearerToken: "abc.def.ghi"}, ""},
		{"login", "dgraph://groot:password@h:9080", clusterConfig{host: "h:9080", sslMode: "disable", user: "groot", password: "password"}, ""},
		{"escaped password", "dgraph://alice:p%40ss%3Aw0rd@h:9080", clusterConfig{host: "h:9080", sslMode: "disable", user: "alice", password: "p@ss:w0rd"}, ""},
		{"namespace with login", "dgraph://alice:secret@h:9080?namespace=7",
			clusterConfig{host: "h:9080", sslMode: "disable", user: "alice", password: "secret", namespace: 7}, ""},
		{"namespace 0 with login", "dgraph://alice:secret@h:9080?namespace=0",
			clusterConfig{host: "h:9080", sslMode: "disable", user: "alice", password: "secret"}, ""},
		{"everything", "dgraph://alice:secret@h:9080?namespace=3&sslmode=require&apikey=k",
			clusterConfig{host: "h:9080", sslMode: "require", apiKey: "k", user: "alice", password: "secret", namespace: 3}, ""},

		{"wrong scheme", "http://h:9080", clusterConfig{}, "scheme must be dgraph://"},
		{"file scheme", "file:///tmp/x", clusterConfig{}, "scheme must be dgraph://"},
		{"no port", "dgraph://h", clusterConfig{}, "give HOST:PORT"},
		{"empty port", "dgraph://h:", clusterConfig{}, "give HOST:PORT"},
		{"no host", "dgraph://:9080", clusterConfig{}, "give HOST:PORT"},
		{"port not a number", "dgraph://h:99999", clusterConfig{}, "is no number"},
		{"path", "dgraph://h:9080/db", clusterConfig{}, "has no path"},
		{"bad sslmode", "dgraph://h:9080?sslmode=prefer", clusterConfig{}, "sslmode must be"},
		{"both tokens", "dgraph://h:9080?apikey=a&bearertoken=b", clusterConfig{}, "not both"},
		{"namespace without login", "dgraph://h:9080?namespace=2", clusterConfig{}, "namespace needs user:password@"},
		{"namespace not a number", "dgraph://u:p@h:9080?namespace=two", clusterConfig{}, "namespace"},
		{"negative namespace", "dgraph://u:p@h:9080?namespace=-1", clusterConfig{}, "namespace"},
		{"user without password", "dgraph://alice@h:9080", clusterConfig{}, "both user and password"},
		{"empty password", "dgraph://alice:@h:9080", clusterConfig{}, "both user and password"},
		{"password without user", "dgraph://:secret@h:9080", clusterConfig{}, "both user and password"},
		{"unknown option", "dgraph://h:9080?sslmod=require", clusterConfig{}, `unknown option "sslmod"`},
		{"bad escape", "dgraph://h:9080?apikey=%zz", clusterConfig{}, "store uri"},
		{"not a url", "dgraph://h:9080 x", clusterConfig{}, "store uri"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseClusterURI(c.uri)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("parseClusterURI(%q) = %+v, %v; want an error with %q", c.uri, got, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseClusterURI(%q): %v", c.uri, err)
			}
			if got != c.want {
				t.Fatalf("parseClusterURI(%q) =\n %+v, want\n %+v", c.uri, got, c.want)
			}
			// Every good URI turns into client options: transport, message sizes, and one per
			// credential given.
			want := 2
			if c.want.apiKey != "" || c.want.bearerToken != "" {
				want++
			}
			if c.want.user != "" {
				want += 2
			}
			if n := len(got.options()); n != want {
				t.Fatalf("%d client options, want %d", n, want)
			}
		})
	}
}
