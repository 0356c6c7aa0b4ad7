// Package web holds the pages the totalrecall binary serves to people and the graph exports:
// the GraphiQL playground at /, the graph explorer at /explore, their assets under /assets/
// (every file embedded with go:embed: GraphiQL bundled with its editor, cytoscape vendored from
// npm, so the pages work with no network), and /export/{scopeId}.{graphml|gexf|cyjs}.
//
// The pages talk to the server only through its public GraphQL API (/query, and
// graphql-transport-ws on the same path for subscriptions); the exports read through the
// Cortex. scripts/web/build.sh rebuilds the bundled assets from pinned npm packages.
package web
