package client

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

func TestServerURL(t *testing.T) {
	t.Setenv(EnvServer, "")
	for _, tc := range []struct{ flag, env, want string }{
		{"", "", "http://127.0.0.1:8080"},
		{"", "10.0.0.2:9000", "http://10.0.0.2:9000"},
		{"https://mem.example/", "10.0.0.2:9000", "https://mem.example"},
		{" 127.0.0.1:1 ", "", "http://127.0.0.1:1"},
	} {
		t.Setenv(EnvServer, tc.env)
		if got := ServerURL(tc.flag); got != tc.want {
			t.Errorf("ServerURL(%q) with $%s=%q = %q, want %q", tc.flag, EnvServer, tc.env, got, tc.want)
		}
	}
}

func TestDoSendsKeyAndDecodes(t *testing.T) {
	var gotAuth, gotType string
	var gotBody map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotType = r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		json.NewDecoder(r.Body).Decode(&gotBody)
		w.Write([]byte(`{"data":{"scope":{"id":"s1","name":"n \"q\" ü"}}}`))
	}))
	defer srv.Close()
	var out struct {
		Scope struct{ ID, Name string }
	}
	c := New(srv.URL, "trk_secret")
	if err := c.Do(context.Background(), "query($id: ID!) { scope(id: $id) { id name } }", map[string]any{"id": "s1"}, &out); err != nil {
		t.Fatal(err)
	}
	if gotAuth != "Bearer trk_secret" || gotType != "application/json" {
		t.Errorf("headers: Authorization %q, Content-Type %q", gotAuth, gotType)
	}
	if gotBody["variables"].(map[string]any)["id"] != "s1" {
		t.Errorf("variables not sent: %v", gotBody)
	}
	if out.Scope.ID != "s1" || out.Scope.Name != `n "q" ü` {
		t.Errorf("decoded %+v", out)
	}
	if strings.Contains(c.String(), "trk_secret") {
		t.Errorf("String() leaks the key: %s", c)
	}
}

func TestDoErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		code       string
		field      string
	}{
		{"graphql error", `{"errors":[{"message":"content: must not be empty","extensions":{"code":"INVALID_ARGUMENT","field":"content"}}],"data":null}`, 200, domain.EINVALID, "content"},
		{"not found", `{"errors":[{"message":"no memory x","extensions":{"code":"NOT_FOUND"}}],"data":null}`, 200, domain.ENOTFOUND, ""},
		{"401", `{"errors":[{"message":"no key"}]}`, 401, EUNAUTHENTICATED, ""},
		{"401 plain", `unauthenticated`, 401, EUNAUTHENTICATED, ""},
		{"413", `too large`, 413, domain.ETOOLARGE, ""},
		{"429", ``, 429, "RATE_LIMITED", ""},
		{"503", `starting`, 503, domain.EUNAVAILABLE, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			err := New(srv.URL, "").Do(context.Background(), "{ __typename }", nil, nil)
			if got := domain.ErrorCode(err); got != tc.code {
				t.Fatalf("code %q (%v), want %q", got, err, tc.code)
			}
			var de *domain.Error
			if tc.field != "" && (!asError(err, &de) || de.Field != tc.field) {
				t.Errorf("field of %v, want %q", err, tc.field)
			}
		})
	}
}

func asError(err error, de **domain.Error) bool {
	e, ok := err.(*domain.Error)
	*de = e
	return ok
}

func TestDeadServerIsOneLine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	err = New(addr, "").Do(context.Background(), "{ __typename }", nil, nil)
	if domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Fatalf("got %v, want UNAVAILABLE", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "no totalrecall server answers at http://"+addr) || strings.Contains(msg, "\n") {
		t.Errorf("message %q: want one line naming the address", msg)
	}
	if err := New(addr, "").Ping(context.Background(), time.Second); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Errorf("Ping: %v", err)
	}
}
