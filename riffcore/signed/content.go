package signed

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Content is the signed content of a message: the sender, its lead mark,
// the thread, the addressees, the body, the kind and the time. Its JSON is
// the payload of the signature.
type Content struct {
	// User is the user of the sender.
	User string `json:"user"`
	// Session is the session ID of the sender; empty for a person.
	Session string `json:"session"`
	// Lead is the lead mark: the sender is the lead of the thread.
	Lead bool `json:"lead"`
	// Thread is the name of the thread.
	Thread string `json:"thread"`
	// To is the JSON array of the selectors as the sender gave it (another
	// package owns the selectors). Nil is no "to" field.
	To json.RawMessage `json:"to,omitempty"`
	// Body is the text of the message.
	Body string `json:"body"`
	// Kind is the kind of the message, as the sender named it.
	Kind string `json:"kind"`
	// TimeMS is the time of the message, in Unix milliseconds.
	TimeMS int64 `json:"time"`
}

// Encode gives the JSON of c, the payload to sign. It writes the fields in
// a fixed order with no HTML escape, and To compacted; a nil To is left
// out. It refuses a To that is not a JSON array.
func Encode(c Content) ([]byte, error) {
	if c.To != nil {
		to, err := compactArray(c.To)
		if err != nil {
			return nil, fmt.Errorf("encode content: %w", err)
		}
		c.To = to
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode content: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Decode reads a payload. It ignores each field that it does not know
// (a field of a later release: Appendix B of the store design) and reads a
// known field only by its exact name. A field that is absent or null reads
// as its zero value. It refuses a payload that is not a JSON object, a
// known field of the wrong type, and a "to" that is not a JSON array; it
// keeps "to" compacted, and never changes payload.
func Decode(payload []byte) (Content, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil {
		return Content{}, fmt.Errorf("decode content: %w", err)
	}
	if fields == nil {
		return Content{}, fmt.Errorf("decode content: payload is null, want a JSON object")
	}
	var c Content
	for _, f := range []struct {
		name string
		into any
	}{
		{"user", &c.User},
		{"session", &c.Session},
		{"lead", &c.Lead},
		{"thread", &c.Thread},
		{"body", &c.Body},
		{"kind", &c.Kind},
		{"time", &c.TimeMS},
	} {
		raw, ok := fields[f.name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, f.into); err != nil {
			return Content{}, fmt.Errorf("decode content: field %q: %w", f.name, err)
		}
	}
	if raw, ok := fields["to"]; ok && string(raw) != "null" {
		to, err := compactArray(raw)
		if err != nil {
			return Content{}, fmt.Errorf("decode content: %w", err)
		}
		c.To = to
	}
	return c, nil
}

// compactArray checks that raw is a JSON array, and gives it compacted
// with no HTML escape, in a new slice.
func compactArray(raw json.RawMessage) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("field \"to\": %w", err)
	}
	if buf.Len() == 0 || buf.Bytes()[0] != '[' {
		return nil, fmt.Errorf("field \"to\": %.40q is not a JSON array", raw)
	}
	return json.RawMessage(buf.Bytes()), nil
}

// Hash gives the hash of a payload for the copy check: the SHA-256 of the
// bytes, in lowercase hex. Two signatures of the same payload differ, and
// their payloads have the same hash.
func Hash(payload []byte) string {
	sum := sha256.Sum256(payload)
	return hex.EncodeToString(sum[:])
}
