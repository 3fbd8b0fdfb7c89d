package fakegithub

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// page cuts items to the page the request asks for (per_page: default 30,
// at most 100; page: from 1) and sets GitHub's Link header.
func page[T any](s *Server, w http.ResponseWriter, r *http.Request, items []T) []T {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 30
	}
	per = min(per, 100)
	n, err := strconv.Atoi(q.Get("page"))
	if err != nil || n <= 0 {
		n = 1
	}
	last := max((len(items)+per-1)/per, 1)
	link := func(p int, rel string) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(per))
		return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, s.URL, r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if n < last {
		links = append(links, link(n+1, "next"), link(last, "last"))
	}
	if n > 1 {
		links = append(links, link(1, "first"), link(min(n-1, last), "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	start := (n - 1) * per
	if start >= len(items) {
		return []T{}
	}
	return items[start:min(start+per, len(items))]
}
