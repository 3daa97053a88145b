package kb

import "testing"

// TestSourcePlace: where a reference says its file is (metadata.source,
// seed 003): a directory's path, a remote's normalised URL without its
// credentials, a local repository's path, else the repository's name.
func TestSourcePlace(t *testing.T) {
	locs := map[string]string{
		"remote": "https://user:secret@GitHub.com/org/proj.git",
		"scp":    "git@gitlab.example.com:team/svc.git",
		"local":  "/srv/git/proj",
	}
	for _, tt := range []struct {
		name string
		src  Source
		file string
		want string
	}{
		{"a directory", Source{Dir: "/srv/handbook"}, "guide/deploy.md", "/srv/handbook/guide/deploy.md"},
		{"a directory ending in /", Source{Dir: "/srv/handbook/"}, "faq.md", "/srv/handbook/faq.md"},
		{"a remote over https", Source{Repo: "remote", Ref: "main"}, "server/parse.go", "github.com/org/proj/server/parse.go"},
		{"a scp-like remote", Source{Repo: "scp"}, "a.py", "gitlab.example.com/team/svc/a.py"},
		{"a local repository", Source{Repo: "local"}, "README.md", "/srv/git/proj/README.md"},
		{"an unknown repository", Source{Repo: "gone"}, "x.go", "gone/x.go"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &Manager{places: map[string]string{tt.src.label(): tt.src.place(locs)}}
			if got := m.filePath(tt.src.label(), tt.file); got != tt.want {
				t.Errorf("filePath = %q, want %q", got, tt.want)
			}
		})
	}
	if got := (&Manager{}).filePath("dir:/old", "a.md"); got != "dir:/old" {
		t.Errorf("a label no config names = %q", got)
	}
}
