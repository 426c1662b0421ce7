package signed

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEncode(t *testing.T) {
	tests := []struct {
		name    string
		content Content
		want    string
	}{
		{
			name:    "a message of the lead",
			content: Content{User: "mike", Session: "a6cf", Lead: true, Thread: "como-technologies/riff", To: json.RawMessage(`[{"claim":"issue-6"}]`), Body: "the API is ready", Kind: "note", TimeMS: 1790539844000},
			want:    samplePayload,
		},
		{
			name:    "a person, no to",
			content: Content{User: "mike", Thread: "chat", Body: "hi", Kind: "note", TimeMS: 1},
			want:    `{"user":"mike","session":"","lead":false,"thread":"chat","body":"hi","kind":"note","time":1}`,
		},
		{
			name:    "to compacted, no HTML escape",
			content: Content{User: "mike", To: json.RawMessage(" [ {\"user\" : \"<b>\"} ]\n"), Body: "a < b && c > d"},
			want:    `{"user":"mike","session":"","lead":false,"thread":"","to":[{"user":"<b>"}],"body":"a < b && c > d","kind":"","time":0}`,
		},
		{
			name:    "empty to",
			content: Content{To: json.RawMessage(`[]`)},
			want:    `{"user":"","session":"","lead":false,"thread":"","to":[],"body":"","kind":"","time":0}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Encode(tt.content)
			if err != nil {
				t.Fatalf("Encode() = %v; want no error", err)
			}
			if string(got) != tt.want {
				t.Errorf("Encode() = %s; want %s", got, tt.want)
			}
			back, err := Decode(got)
			if err != nil {
				t.Fatalf("Decode(Encode()) = %v; want no error", err)
			}
			want := tt.content
			if want.To != nil {
				want.To, _ = compactArray(want.To)
			}
			if diff := cmp.Diff(want, back); diff != "" {
				t.Errorf("Decode(Encode()) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeRefused(t *testing.T) {
	tests := []struct {
		name    string
		to      string
		wantErr string
	}{
		{"an object", `{"user":"mike"}`, `encode content: field "to": "{\"user\":\"mike\"}" is not a JSON array`},
		{"not JSON", `[`, `encode content: field "to": unexpected end of JSON input`},
		{"null", `null`, `is not a JSON array`},
		{"empty but not nil", ``, `encode content: field "to"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Encode(Content{To: json.RawMessage(tt.to)})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Encode(to %s) = %s, %v; want an error with %q", tt.to, got, err, tt.wantErr)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    Content
		wantErr string
	}{
		{
			name:    "every field",
			payload: samplePayload,
			want:    Content{User: "mike", Session: "a6cf", Lead: true, Thread: "como-technologies/riff", To: json.RawMessage(`[{"claim":"issue-6"}]`), Body: "the API is ready", Kind: "note", TimeMS: 1790539844000},
		},
		{
			name:    "fields of a later release",
			payload: `{"user":"mike","reply_to":{"seq":417},"only_worktree":"issue-6","kind":"question"}`,
			want:    Content{User: "mike", Kind: "question"},
		},
		{
			name:    "names match exactly",
			payload: `{"user":"mike","User":"eve","LEAD":true}`,
			want:    Content{User: "mike"},
		},
		{name: "empty object", payload: `{}`, want: Content{}},
		{name: "null fields", payload: `{"user":null,"lead":null,"to":null,"time":null}`, want: Content{}},
		{name: "to kept compacted", payload: `{"to": [ {"user": "mike"}, {"other": [1, 2]} ]}`, want: Content{To: json.RawMessage(`[{"user":"mike"},{"other":[1,2]}]`)}},
		{name: "null", payload: `null`, wantErr: "decode content: payload is null"},
		{name: "an array", payload: `[]`, wantErr: "decode content: json: cannot unmarshal array"},
		{name: "not JSON", payload: `{"user":`, wantErr: "decode content: unexpected end of JSON input"},
		{name: "empty", payload: ``, wantErr: "decode content: unexpected end of JSON input"},
		{name: "lead as text", payload: `{"lead":"true"}`, wantErr: `decode content: field "lead"`},
		{name: "time as a fraction", payload: `{"time":1.5}`, wantErr: `decode content: field "time"`},
		{name: "user as a number", payload: `{"user":7}`, wantErr: `decode content: field "user"`},
		{name: "to as an object", payload: `{"to":{"user":"mike"}}`, wantErr: `decode content: field "to": "{\"user\":\"mike\"}" is not a JSON array`},
		{name: "to as text", payload: `{"to":"all"}`, wantErr: `decode content: field "to"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.payload))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Decode(%s) = %+v, %v; want an error with %q", tt.payload, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%s) = %v; want no error", tt.payload, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode(%s) (-want +got):\n%s", tt.payload, diff)
			}
		})
	}
}

// TestDecodeKeepsPayload: Decode never changes the bytes that it reads.
func TestDecodeKeepsPayload(t *testing.T) {
	payload := []byte(`{"to": [ {"user": "mike"} ], "body":"x"}`)
	before := string(payload)
	c, err := Decode(payload)
	if err != nil {
		t.Fatalf("Decode() = %v", err)
	}
	c.To[0] = 'X'
	if string(payload) != before {
		t.Errorf("payload after Decode() = %s; want %s", payload, before)
	}
}
