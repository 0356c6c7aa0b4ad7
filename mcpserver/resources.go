package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
)

// IdentityURI is the resource of the connection's scope's identity: its kernels and its
// IDENTITY_CORE memories.
const IdentityURI = "totalrecall://identity"

// StoryURI is the resource of the connection's scope's story: every chapter, as Markdown with its
// <!-- LAST_PROCESSED --> anchor.
const StoryURI = "totalrecall://story"

func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{URI: IdentityURI, Name: "identity", Title: "Identity",
		Description: "Who you are in this scope: the agent and world kernels and the IDENTITY_CORE memories.", MIMEType: "text/markdown"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			b, err := bound(ctx)
			if err != nil {
				return nil, s.toolError("identity", err)
			}
			text, err := s.identity(ctx, b)
			if err != nil {
				return nil, s.toolError("identity", err)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: IdentityURI, MIMEType: "text/markdown", Text: text}}}, nil
		})
	s.mcp.AddResource(&mcp.Resource{URI: StoryURI, Name: "story", Title: "Story",
		Description: "Your story in this scope: the first-person chapters the Subconscious wrote from the memories of your sessions, oldest first.", MIMEType: "text/markdown"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			b, err := bound(ctx)
			if err != nil {
				return nil, s.toolError("story", err)
			}
			st, err := s.cx.Story(ctx, b.scope.ID)
			if err != nil {
				return nil, s.toolError("story", err)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: StoryURI, MIMEType: "text/markdown", Text: st.Markdown}}}, nil
		})
}

// identity renders the scope's identity.
func (s *Server) identity(ctx context.Context, b *binding) (string, error) {
	sc, err := s.cx.Scope(ctx, b.scope.ID)
	if err != nil {
		return "", err
	}
	page, err := s.cx.Memories(ctx, sc.ID, domain.MemoryFilter{Tiers: []domain.Tier{domain.TierIdentityCore},
		States: []domain.LifecycleState{domain.StateActive}}, domain.Page{First: cortex.MaxIdentityMemories})
	if err != nil {
		return "", err
	}
	var w strings.Builder
	fmt.Fprintf(&w, "# Identity in scope %q (%s)\n\n", sc.Name, sc.ID)
	kernel := func(title string, k *domain.Kernel) {
		fmt.Fprintf(&w, "## %s\n\n", title)
		if k == nil || strings.TrimSpace(k.Content) == "" {
			w.WriteString("(empty)\n\n")
			return
		}
		w.WriteString(strings.TrimSpace(k.Content) + "\n\n")
	}
	kernel("Agent kernel", sc.AgentKernel)
	kernel("World kernel", sc.WorldKernel)
	fmt.Fprintf(&w, "## IDENTITY_CORE memories (%d)\n\n", len(page.Memories))
	for _, m := range page.Memories {
		w.WriteString(client.MemoryLine(m, 0) + "\n")
	}
	return w.String(), nil
}
