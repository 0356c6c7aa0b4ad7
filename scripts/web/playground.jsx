// The GraphiQL playground served at / by the totalrecall binary. Bundled by build.sh into
// web/assets/playground/ (one script, one stylesheet and Monaco's three workers), so the page
// loads nothing from the network.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { createClient } from 'graphql-ws';
import 'graphiql/style.css';

// The API key of this tab (serve --auth): kept in sessionStorage, shared with the explorer.
const KEY = 'totalrecall.key';
const key = () => sessionStorage.getItem(KEY) || '';

const assets = new URL('.', document.currentScript ? document.currentScript.src : location.href);
globalThis.MonacoEnvironment = {
  getWorker(_id, label) {
    const name = label === 'json' || label === 'graphql' ? label : 'editor';
    return new Worker(new URL('worker-' + name + '.js', assets));
  },
};

const endpoint = document.querySelector('meta[name="totalrecall-graphql"]')?.content || '/query';
const url = new URL(endpoint, location.href).href;
const wsUrl = url.replace(/^http/, 'ws');

// graphql-transport-ws; the key travels in connection_init's payload.
const wsClient = createClient({
  url: wsUrl,
  lazy: true,
  retryAttempts: 3,
  connectionParams: () => (key() ? { authorization: 'Bearer ' + key() } : {}),
});

// Every HTTP request carries the key; a 401 asks for one and tries again.
async function authorisedFetch(input, init = {}) {
  for (let attempt = 0; ; attempt++) {
    const headers = new Headers(init.headers || {});
    if (key() && !headers.has('Authorization')) headers.set('Authorization', 'Bearer ' + key());
    const res = await fetch(input, { ...init, headers });
    if (res.status !== 401 || attempt > 0) return res;
    const k = window.prompt('This totalrecall server wants an API key (kept for this tab only):');
    if (!k) return res;
    sessionStorage.setItem(KEY, k.trim());
    wsClient.terminate();
  }
}

const fetcher = createGraphiQLFetcher({ url, wsClient, fetch: authorisedFetch });

const params = new URLSearchParams(location.search);
const defaultQuery = `# totalrecall — the GraphQL API of a graph-native memory server.
# Explore the graph visually at /explore. Run with Ctrl-Enter.

query Scopes {
  scopes { id name createdAt }
}

# query Neighborhood($scope: ID!, $seed: ID!) {
#   neighborhood(scopeId: $scope, seeds: [$seed], depth: 2) {
#     nodes { id kind label tier salience state }
#     edges { source target kind type strength }
#     truncated
#   }
# }

# subscription Live($scope: ID!) {
#   memoryEvents(scopeId: $scope) { seq type memoryId timestamp }
# }
`;

function Playground() {
  return React.createElement(
    GraphiQL,
    {
      fetcher,
      defaultQuery,
      initialQuery: params.get('query') || undefined,
      initialVariables: params.get('variables') || undefined,
      defaultEditorToolsVisibility: params.has('variables'),
    },
    React.createElement(
      GraphiQL.Logo,
      null,
      React.createElement('a', { href: 'explore', className: 'tr-explore-link', title: 'Explore the graph' }, 'totalrecall · explorer →'),
    ),
  );
}

createRoot(document.getElementById('graphiql')).render(React.createElement(Playground));
