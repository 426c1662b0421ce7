package daemon

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Settings are the settings of a repository for its sessions, from the
// riff.toml at the root of its default branch on origin: only the merged
// riff.toml counts (docs/daemon.md, "riff.toml").
type Settings struct {
	// Image is the session image, pinned by digest:
	// NAME@sha256:64 hex digits.
	Image string
	// Sources are the hosts of the package sources of the repository:
	// one autoMode.environment entry each.
	Sources []string
	// Env are the variables of [session.env], sorted by name.
	Env [][2]string
	// Volumes are the volumes of [session.volumes] (VOLUME = "PATH"),
	// sorted by path.
	Volumes []Bind
}

// pinned is an image pinned by digest.
var pinned = regexp.MustCompile(`^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$`)

// envName is a name of a variable.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// sourceHost is a host of a package source: a name, no scheme, no path.
var sourceHost = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)

// volumeName is a named volume of podman (a volume that is no path).
var volumeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ReadSettings reads the text of a riff.toml. Each error names the key
// and the text that is wrong: then riff starts no session.
func ReadSettings(text string) (Settings, error) {
	var file struct {
		Session struct {
			Image   string            `toml:"image"`
			Sources []string          `toml:"sources"`
			Env     map[string]string `toml:"env"`
			Volumes map[string]string `toml:"volumes"`
		} `toml:"session"`
	}
	md, err := toml.Decode(text, &file)
	if err != nil {
		return Settings{}, fmt.Errorf("riff.toml is no TOML that riff can read: %v", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		var keys []string
		for _, k := range und {
			if strings.HasPrefix(k.String(), "session.") || k.String() == "session" {
				keys = append(keys, k.String())
			}
		}
		if len(keys) > 0 {
			return Settings{}, fmt.Errorf("riff.toml has a key that riff does not know in [session]: %s", strings.Join(keys, ", "))
		}
	}
	s := file.Session
	out := Settings{Image: s.Image}
	switch {
	case s.Image == "":
		return Settings{}, fmt.Errorf("riff.toml names no session image: set image in [session] to an image pinned by digest, NAME@sha256:DIGEST")
	case !pinned.MatchString(s.Image):
		return Settings{}, fmt.Errorf("the session image of riff.toml is not pinned by digest: %q. Give NAME@sha256: and its 64 hex digits", s.Image)
	}
	for _, h := range s.Sources {
		if !sourceHost.MatchString(h) {
			return Settings{}, fmt.Errorf("sources in [session] of riff.toml is a list of hosts such as pypi.org (no https://, no path), not %q", h)
		}
		out.Sources = append(out.Sources, h)
	}
	names := make([]string, 0, len(s.Env))
	for k := range s.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !envName.MatchString(k) {
			return Settings{}, fmt.Errorf("[session.env] of riff.toml has a name that is no variable: %q", k)
		}
		out.Env = append(out.Env, [2]string{k, s.Env[k]})
	}
	for vol, p := range s.Volumes {
		if !volumeName.MatchString(vol) {
			return Settings{}, fmt.Errorf("[session.volumes] of riff.toml names a volume %q: a named volume of podman is letters, digits, and . _ -", vol)
		}
		if !path.IsAbs(p) || path.Clean(p) != p {
			return Settings{}, fmt.Errorf("[session.volumes] of riff.toml puts %s at %q: give a clean absolute path in the container", vol, p)
		}
		out.Volumes = append(out.Volumes, Bind{Host: vol, Path: p})
	}
	sort.Slice(out.Volumes, func(i, j int) bool { return out.Volumes[i].Path < out.Volumes[j].Path })
	return out, nil
}
