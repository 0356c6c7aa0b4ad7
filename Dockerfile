# syntax=docker/dockerfile:1
#
# totalrecall server image.
#
#   docker build -t totalrecall .
#   docker run -p 8080:8080 -v totalrecall-data:/data totalrecall
#
# Without --store the server uses the embedded engine on /data (file://./data,
# relative to the working directory /). With --store dgraph://HOST:9080 it talks
# to a Dgraph cluster and keeps only its search index under /data; see
# docker-compose.yml.

############################ build ############################
FROM golang:1.26 AS build

WORKDIR /src

# cgo is off: the embedded Dgraph engine (modusGraph), dgo and Bleve build as
# pure Go (Dgraph's own release images are built with CGO_ENABLED=0 too), so
# the binary is static and runs on any base image.
ENV CGO_ENABLED=0 \
    GOFLAGS=-buildvcs=false

COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download

COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags="-s -w" -o /out/totalrecall ./cmd/totalrecall

############################ runtime ##########################
FROM debian:bookworm-slim

# curl is for the health check; ca-certificates for TLS to remote services.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 65532 totalrecall \
    && useradd --system --uid 65532 --gid 65532 --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin totalrecall \
    && mkdir -p /data \
    && chown totalrecall:totalrecall /data

COPY --from=build /out/totalrecall /usr/local/bin/totalrecall

USER totalrecall
# ./data (the default store and search index folder) is /data.
WORKDIR /
VOLUME ["/data"]
EXPOSE 8080

HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
    CMD curl -fsS http://localhost:8080/healthz || exit 1

ENTRYPOINT ["totalrecall"]
CMD ["serve", "--addr", "0.0.0.0:8080"]
