package server

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"
)

// methodOrder is the order of the methods of one path in the endpoint
// list; others follow alphabetically.
var methodOrder = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// anyMethods are the methods that, all registered on one path, make it a
// route for every method (echo's Any): it is listed by its path alone.
var anyMethods = []string{http.MethodConnect, http.MethodDelete, http.MethodGet, http.MethodHead,
	http.MethodOptions, http.MethodPatch, http.MethodPost, http.MethodPut, http.MethodTrace}

// endpointList lists routes for the suggestion of NOT_FOUND and
// METHOD_NOT_ALLOWED: "GET|PATCH /path" sorted by path, a parameter as
// {name}, and a path every method reaches by its path alone. It comes from
// the route table, so it names every route the server has and no other.
func endpointList(routes []*echo.Route) string {
	byPath := map[string][]string{}
	for _, r := range routes {
		byPath[r.Path] = append(byPath[r.Path], r.Method)
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		shown := showPath(p)
		ms := byPath[p]
		if containsAll(ms, anyMethods) {
			out = append(out, shown)
			continue
		}
		slices.SortFunc(ms, func(a, b string) int {
			ia, ib := slices.Index(methodOrder, a), slices.Index(methodOrder, b)
			if ia < 0 {
				ia = len(methodOrder)
			}
			if ib < 0 {
				ib = len(methodOrder)
			}
			if ia != ib {
				return ia - ib
			}
			return strings.Compare(a, b)
		})
		out = append(out, strings.Join(slices.Compact(ms), "|")+" "+shown)
	}
	return strings.Join(out, ", ")
}

// showPath writes a route's path as the documentation does: :name as
// {name}.
func showPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			parts[i] = "{" + name + "}"
		}
	}
	return strings.Join(parts, "/")
}

// containsAll reports whether have holds every one of want.
func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
