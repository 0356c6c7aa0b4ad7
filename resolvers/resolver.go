// Package resolvers maps GraphQL onto the Cortex: thin resolvers, no behaviour of their own.
// The generated executor lives in resolvers/generated, input models in resolvers/model.
package resolvers

//go:generate sh -c "cd .. && go tool gqlgen generate --config gqlgen.yml"
//go:generate sh -c "cd .. && go run ./scripts/apidoc"

import "github.com/totalrecall/totalrecall/domain/cortex"

// Resolver is the root resolver.
type Resolver struct {
	Cortex *cortex.Cortex
}
