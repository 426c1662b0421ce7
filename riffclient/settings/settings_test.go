package settings_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffclient/settings"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestGivenNoSettingsFileWhenItIsReadThenTheKeysHaveTheirDefaults(t *testing.T) {
	s, err := settings.Load(env(map[string]string{"XDG_CONFIG_HOME": t.TempDir()}))
	if err != nil || s.LeadWake != 15 || !s.LeadNotify {
		t.Errorf("Load with no file = %+v, %v; want lead.wake 15, lead.notify true", s, err)
	}
}

func TestGivenASettingsFileWhenItSetsTheKeysOfTheLeadThenTheyAreRead(t *testing.T) {
	for _, text := range []string{
		"lead.wake = 5\nlead.notify = false\n",
		"update.auto = true\n\n[lead]\nwake = 5\nnotify = false\n",
	} {
		s, err := settings.Parse("config.toml", []byte(text))
		if err != nil || s.LeadWake != 5 || s.LeadNotify {
			t.Errorf("Parse(%q) = %+v, %v; want lead.wake 5, lead.notify false", text, s, err)
		}
	}
}

func TestGivenTheEnvWhenThePathIsAskedThenItIsTheConfigFolderOfRiff(t *testing.T) {
	if p, _ := settings.Path(env(map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"})); p != "/x/riff/config.toml" {
		t.Errorf("Path with XDG_CONFIG_HOME = %q; want /x/riff/config.toml", p)
	}
	if p, _ := settings.Path(env(map[string]string{"HOME": "/h"})); p != "/h/.config/riff/config.toml" {
		t.Errorf("Path with HOME = %q; want /h/.config/riff/config.toml", p)
	}
	if _, err := settings.Path(env(nil)); err == nil {
		t.Error("Path with no HOME gives no error")
	}
}

func TestGivenABadValueWhenTheFileIsReadThenTheErrorNamesTheKeyAndTheDefaultsHold(t *testing.T) {
	for text, want := range map[string]string{
		"lead.wake = 0":         "lead.wake in config.toml is 0",
		"lead.wake = 1441":      "lead.wake in config.toml is 1441",
		`lead.wake = "15"`:      "lead.wake in config.toml is a whole number of minutes (15 by default), not a string",
		"lead.wake = 1.5":       "not a fraction",
		`lead.notify = "yes"`:   "lead.notify in config.toml is true or false, not a string",
		"lead = [1]":            "does not read as TOML",
		"this is [ not toml ==": "does not read as TOML",
	} {
		s, err := settings.Parse("config.toml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v; want an error with %q", text, err, want)
		}
		if s != settings.Defaults() {
			t.Errorf("Parse(%q) = %+v; want the defaults with the error", text, s)
		}
	}
}

func TestGivenAFileThatIsAFolderWhenItIsReadThenTheErrorSaysSo(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "riff", "config.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := settings.Load(env(map[string]string{"XDG_CONFIG_HOME": dir})); err == nil || !strings.Contains(err.Error(), "does not read") {
		t.Errorf("Load of a folder = %v; want does not read", err)
	}
}

// TestGivenTheSettingsOfDocsSettingsMdWhenTheyAreReadAsWrittenThenTheyAreTheKeysThatThePageSays:
// the TOML that docs/settings.md gives to copy reads as the page says.
func TestGivenTheSettingsOfDocsSettingsMdWhenTheyAreReadAsWrittenThenTheyAreTheKeysThatThePageSays(t *testing.T) {
	page, err := os.ReadFile("../../docs/settings.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(page), "```toml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/settings.md has no toml block")
	}
	s, err := settings.Parse("docs/settings.md", []byte(block))
	if err != nil || s.LeadWake != 30 || s.LeadNotify {
		t.Errorf("the block of docs/settings.md = %+v, %v; want lead.wake 30 and lead.notify false, as the page says", s, err)
	}
	// The dotted form of the page is the same key.
	if s, err := settings.Parse("docs/settings.md", []byte("lead.wake = 30\n")); err != nil || s.LeadWake != 30 {
		t.Errorf("lead.wake = 30 = %+v, %v", s, err)
	}
}
