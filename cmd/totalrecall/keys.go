package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/graph"
)

// keysCmd is `totalrecall keys create|list|revoke`: through a running server (--server, with an
// ADMIN key in $TOTALRECALL_KEY when it runs --auth), or on the data folder itself (--store, the
// server stopped) — how the first ADMIN key is made.
func keysCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("keys: say create, list or revoke")
	}
	sub := args[0]
	fs := flag.NewFlagSet("keys "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("server", "", "a running server (default $TOTALRECALL_SERVER, else "+client.DefaultServer+"); its key from $TOTALRECALL_KEY")
	store := fs.String("store", "", "the data itself (file://PATH or dgraph://HOST:PORT), with the server stopped")
	var role, scope, name, expiresAt string
	var expiresIn time.Duration
	switch sub {
	case "create":
		fs.StringVar(&role, "role", "", "admin, write or read")
		fs.StringVar(&scope, "scope", "", "the scope a write or read key is bound to")
		fs.StringVar(&name, "name", "", "a name people recognise the key by")
		fs.StringVar(&expiresAt, "expires-at", "", "when the key stops working (RFC 3339)")
		fs.DurationVar(&expiresIn, "expires-in", 0, "how long the key works (e.g. 720h)")
	case "list", "revoke":
	default:
		return fmt.Errorf("keys: unknown subcommand %q (create, list or revoke)", sub)
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	ctx := context.Background()
	ks, closeIt, err := openKeys(ctx, *server, *store)
	if err != nil {
		return err
	}
	defer closeIt()
	switch sub {
	case "create":
		in := cortex.APIKeyInput{Name: name, Role: domain.Role(strings.ToUpper(role)), ScopeID: scope}
		if role == "" {
			return errors.New("keys create: give --role admin, write or read")
		}
		if expiresAt != "" && expiresIn != 0 {
			return errors.New("keys create: give --expires-at or --expires-in, not both")
		}
		if expiresAt != "" {
			t, err := time.Parse(time.RFC3339Nano, expiresAt)
			if err != nil {
				return fmt.Errorf("keys create --expires-at %q: want an RFC 3339 time", expiresAt)
			}
			in.ExpiresAt = &t
		}
		if expiresIn != 0 {
			t := time.Now().Add(expiresIn)
			in.ExpiresAt = &t
		}
		nk, err := ks.create(ctx, in)
		if err != nil {
			return err
		}
		desc := string(nk.Key.Role)
		if nk.Key.ScopeID != "" {
			desc += " on scope " + nk.Key.ScopeID
		}
		fmt.Fprintf(stderr, "created API key %s (%s, %q); the key below is shown once: store it now\n", nk.Key.ID, desc, nk.Key.Name)
		fmt.Fprintln(stdout, nk.Secret)
		return nil
	case "list":
		keys, err := ks.list(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tROLE\tSCOPE\tCREATED\tEXPIRES\tREVOKED\tLAST USED")
		for _, k := range keys {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Role, orDash(k.ScopeID), k.CreatedAt.Format(time.RFC3339),
				timeOrDash(k.ExpiresAt), timeOrDash(k.RevokedAt), timeOrDash(k.LastUsedAt))
		}
		return tw.Flush()
	default: // revoke
		if fs.NArg() != 1 {
			return errors.New("keys revoke: give the key's id")
		}
		k, err := ks.revoke(ctx, fs.Arg(0))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked API key %s (%q) at %s\n", k.ID, k.Name, k.RevokedAt.Format(time.RFC3339))
		return nil
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// keyAdmin is where keys are managed: a server's API or the keyring on the data.
type keyAdmin struct {
	create func(context.Context, cortex.APIKeyInput) (*cortex.NewAPIKey, error)
	list   func(context.Context) ([]*domain.APIKey, error)
	revoke func(context.Context, string) (*domain.APIKey, error)
}

func openKeys(ctx context.Context, server, store string) (*keyAdmin, func(), error) {
	if store != "" {
		if server != "" {
			return nil, nil, errors.New("keys: give --server or --store, not both")
		}
		sf := storeFlags{store: store}
		uri, _, err := sf.paths()
		if err != nil {
			return nil, nil, err
		}
		st, err := graph.Open(ctx, uri)
		if err != nil {
			return nil, nil, heldFolder(store, err)
		}
		kr, err := cortex.NewKeyring(ctx, st, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		return &keyAdmin{create: kr.Create, list: kr.List, revoke: kr.Revoke}, func() { kr.Close(); st.Close() }, nil
	}
	c := client.FromEnv(server)
	return &keyAdmin{
		create: func(ctx context.Context, in cortex.APIKeyInput) (*cortex.NewAPIKey, error) {
			vars := map[string]any{"in": map[string]any{"role": string(in.Role), "name": in.Name}}
			if in.ScopeID != "" {
				vars["in"].(map[string]any)["scopeId"] = in.ScopeID
			}
			if in.ExpiresAt != nil {
				vars["in"].(map[string]any)["expiresAt"] = in.ExpiresAt.UTC().Format(time.RFC3339Nano)
			}
			var out struct {
				CreateAPIKey struct {
					Key    string     `json:"key"`
					APIKey apiKeyJSON `json:"apiKey"`
				} `json:"createApiKey"`
			}
			if err := c.Do(ctx, `mutation($in: ApiKeyInput!) { createApiKey(input: $in) { key apiKey { `+apiKeyFields+` } } }`, vars, &out); err != nil {
				return nil, err
			}
			return &cortex.NewAPIKey{Key: out.CreateAPIKey.APIKey.key(), Secret: out.CreateAPIKey.Key}, nil
		},
		list: func(ctx context.Context) ([]*domain.APIKey, error) {
			var out struct {
				APIKeys []apiKeyJSON `json:"apiKeys"`
			}
			if err := c.Do(ctx, `{ apiKeys { `+apiKeyFields+` } }`, nil, &out); err != nil {
				return nil, err
			}
			keys := make([]*domain.APIKey, len(out.APIKeys))
			for i := range out.APIKeys {
				keys[i] = out.APIKeys[i].key()
			}
			return keys, nil
		},
		revoke: func(ctx context.Context, id string) (*domain.APIKey, error) {
			var out struct {
				RevokeAPIKey apiKeyJSON `json:"revokeApiKey"`
			}
			if err := c.Do(ctx, `mutation($id: ID!) { revokeApiKey(id: $id) { `+apiKeyFields+` } }`, map[string]any{"id": id}, &out); err != nil {
				return nil, err
			}
			return out.RevokeAPIKey.key(), nil
		},
	}, func() {}, nil
}

const apiKeyFields = `id name role scopeId createdAt expiresAt revokedAt lastUsedAt`

type apiKeyJSON struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Role       string     `json:"role"`
	ScopeID    *string    `json:"scopeId"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  *time.Time `json:"expiresAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

func (k apiKeyJSON) key() *domain.APIKey {
	out := &domain.APIKey{ID: k.ID, Name: k.Name, Role: domain.Role(k.Role), CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt,
		RevokedAt: k.RevokedAt, LastUsedAt: k.LastUsedAt}
	if k.ScopeID != nil {
		out.ScopeID = *k.ScopeID
	}
	return out
}

// heldFolder says in one line that another process holds the data.
func heldFolder(store string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "lock") || strings.Contains(msg, "singleton") || strings.Contains(msg, "one embedded engine") {
		return fmt.Errorf("the data at %s is held by a running server: stop it first, or manage keys through it with --server", store)
	}
	return err
}
