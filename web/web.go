package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/totalrecall/totalrecall/domain"
)

//go:embed assets
var assets embed.FS

// asset is one embedded file as served: its bytes, its gzip, its ETag.
type asset struct {
	raw      []byte
	gz       []byte
	etag     string
	ctype    string
	compress sync.Once
}

var (
	assetsMu sync.Mutex
	cache    = map[string]*asset{}
)

// lookup returns the embedded file at name (relative to assets/), nil if there is none.
func lookup(name string) *asset {
	assetsMu.Lock()
	defer assetsMu.Unlock()
	if a, ok := cache[name]; ok {
		return a
	}
	raw, err := fs.ReadFile(assets, "assets/"+name)
	if err != nil {
		cache[name] = nil
		return nil
	}
	sum := sha256.Sum256(raw)
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	a := &asset{raw: raw, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, ctype: ctype}
	cache[name] = a
	return a
}

// serveAsset writes an embedded file, compressed when the client takes gzip (the playground's
// script is 5 MB, 1.4 MB compressed), and answers 304 to a client that has it.
func serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	a := lookup(name)
	if a == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.raw
	if len(a.raw) > 1024 && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		a.compress.Do(func() {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			zw.Write(a.raw)
			zw.Close()
			a.gz = b.Bytes()
		})
		body = a.gz
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

// Playground serves the GraphiQL playground page.
func Playground() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveAsset(w, r, "playground/index.html")
	})
}

// Explorer serves the graph explorer page.
func Explorer() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveAsset(w, r, "explorer/index.html")
	})
}

// Assets serves the pages' embedded files under the prefix it is mounted at (/assets/).
func Assets(prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, prefix)
		if name == "" || strings.HasSuffix(name, "/") || strings.HasSuffix(name, "index.html") || strings.Contains(name, "..") {
			http.NotFound(w, r)
			return
		}
		serveAsset(w, r, name)
	})
}

// Export serves GET /export/{file}: file is SCOPEID.graphml, SCOPEID.gexf or SCOPEID.cyjs, the
// scope's whole graph as a download. A refusal is a status with the code in X-Error-Code and
// the message as text.
func Export(src GraphSource) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file := r.PathValue("file")
		if file == "" {
			file = path.Base(r.URL.Path)
		}
		scopeID, ext, ok := strings.Cut(file, ".")
		if !ok {
			httpError(w, domain.FieldErrorf("format", "name the format: /export/SCOPEID.graphml, .gexf or .cyjs"))
			return
		}
		f, err := ParseFormat(ext)
		if err != nil {
			httpError(w, err)
			return
		}
		if err := domain.CheckID("scopeId", scopeID); err != nil {
			httpError(w, err)
			return
		}
		// The scope is looked up before the first byte, so a missing one is a clean 404.
		if _, err := src.Scope(r.Context(), scopeID); err != nil {
			httpError(w, err)
			return
		}
		w.Header().Set("Content-Type", f.ContentType())
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="totalrecall-%s.%s"`, scopeID, f))
		w.Header().Set("Cache-Control", "no-store")
		if _, err := WriteGraph(r.Context(), src, scopeID, f, w); err != nil {
			// Half a file must not pass for a whole one: the client sees the connection cut.
			panic(http.ErrAbortHandler)
		}
	})
}

// httpError answers a refusal: the status its code stands for, the code in X-Error-Code and the
// message as the body.
func httpError(w http.ResponseWriter, err error) {
	code := domain.ErrorCode(err)
	status := http.StatusInternalServerError
	switch code {
	case domain.EINVALID:
		status = http.StatusBadRequest
	case domain.ENOTFOUND:
		status = http.StatusNotFound
	case domain.EFORBIDDEN:
		status = http.StatusForbidden
	case domain.EUNAVAILABLE, domain.ESHUTTINGDOWN:
		status = http.StatusServiceUnavailable
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Error-Code", code)
	w.WriteHeader(status)
	fmt.Fprintln(w, domain.ErrorMessage(err))
}
