package resolvers

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
)

// DumpHandler serves the whole graph's dump to clients of a running server: GET /export writes
// it (JSON Lines, ids preserved, as `totalrecall export`), POST /import loads one (as
// `totalrecall import dump`). Both go through the Cortex with the request's context.
func DumpHandler(cx *cortex.Cortex) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/export" && r.Method == http.MethodGet:
			if !domain.PrincipalFrom(r.Context()).Admin() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusForbidden)
				_ = json.NewEncoder(w).Encode(map[string]any{"data": nil, "errors": []map[string]any{{
					"message": "only an ADMIN key may dump the whole graph", "extensions": map[string]any{"code": domain.EFORBIDDEN}}}})
				return
			}
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.Header().Set("Content-Disposition", `attachment; filename="totalrecall.jsonl"`)
			// Once the dump has started the status is sent: a failure cuts it short.
			_, _ = cx.ExportDump(r.Context(), w)
		case r.URL.Path == "/import" && r.Method == http.MethodPost:
			n, err := cx.ImportDump(r.Context(), r.Body)
			w.Header().Set("Content-Type", "application/json")
			if err != nil {
				code := domain.ErrorCode(err)
				status := http.StatusInternalServerError
				switch code {
				case domain.EINVALID:
					status = http.StatusBadRequest
				case domain.ECONFLICT:
					status = http.StatusConflict
				case domain.EFORBIDDEN:
					status = http.StatusForbidden
				case domain.EUNAVAILABLE:
					status = http.StatusServiceUnavailable
				}
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					code, status = domain.ETOOLARGE, http.StatusRequestEntityTooLarge
				}
				w.WriteHeader(status)
				json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": domain.ErrorMessage(err)}})
				return
			}
			json.NewEncoder(w).Encode(map[string]int{"lines": n})
		default:
			w.Header().Set("Allow", "GET /export, POST /import")
			http.Error(w, "GET /export or POST /import", http.StatusMethodNotAllowed)
		}
	})
}
