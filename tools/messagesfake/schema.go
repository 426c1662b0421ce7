package messagesfake

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// schema is the part of JSON Schema that the input schemas of tools use
// and that CheckInput checks.
type schema struct {
	Type                 any                `json:"type"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Enum                 []any              `json:"enum"`
	Items                *schema            `json:"items"`
}

// CheckInput says whether input fits the input schema of a tool as a
// model must fit it: an object with each required property, no property
// the schema does not name when it forbids others, and each value of the
// type and enum of its property. An empty schema takes any input.
func CheckInput(raw json.RawMessage, input map[string]any) error {
	if len(raw) == 0 {
		return nil
	}
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("the schema is no JSON Schema: %v", err)
	}
	// Round-trip the input, so that Go values are JSON values.
	b, err := json.Marshal(input)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return s.check("input", v)
}

func (s *schema) check(path string, v any) error {
	if s == nil {
		return nil
	}
	if t := s.types(); len(t) > 0 && !matchesType(t, v) {
		return fmt.Errorf("%s is %s, not %s", path, jsonType(v), strings.Join(t, " or "))
	}
	if len(s.Enum) > 0 {
		found := false
		for _, e := range s.Enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%s is %v, not one of %v", path, v, s.Enum)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := v[r]; !ok {
				return fmt.Errorf("%s has no %q, which the schema requires", path, r)
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p, named := s.Properties[k]
			if !named {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					return fmt.Errorf("%s has %q, which the schema does not name", path, k)
				}
				continue
			}
			if err := p.check(path+"."+k, v[k]); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := s.Items.check(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
				return err
			}
		}
	}
	return nil
}

// types gives the type of s: one name or a list.
func (s *schema) types() []string {
	switch t := s.Type.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if n, ok := e.(string); ok {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

func matchesType(types []string, v any) bool {
	got := jsonType(v)
	for _, t := range types {
		if t == got || (t == "number" && got == "integer") {
			return true
		}
	}
	return false
}

// jsonType names the JSON type of a decoded value; a whole number is an
// integer.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
