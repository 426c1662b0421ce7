package messagesfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// PlanFile is the JSON form of an Agent, for a program or a script that
// runs the stand-in in a process of its own (tools/fakemodel):
//
//	{
//	  "plans": [
//	    {"name": "take", "when": "take issue-7",
//	     "steps": [{"tool": "mcp__riff__claim", "input": {"item": "issue-7"}}],
//	     "text": "I hold issue-7."}
//	  ],
//	  "block": [{"contains": "git push", "rule": "Production Deploy"}]
//	}
//
// A plan answers a turn whose prompt contains its "when" ("" answers
// each); "refused" on a step says that the plan wants its refusal. The
// classifier of auto mode blocks an action that contains a "contains" of
// "block", with its rule, and allows the others.
type PlanFile struct {
	Plans []FilePlan  `json:"plans"`
	Block []FileBlock `json:"block,omitempty"`
}

// FilePlan is a Plan of a PlanFile.
type FilePlan struct {
	Name  string     `json:"name"`
	When  string     `json:"when"`
	Steps []FileStep `json:"steps"`
	Text  string     `json:"text,omitempty"`
}

// FileStep is a Step of a FilePlan.
type FileStep struct {
	Tool    string         `json:"tool"`
	Input   map[string]any `json:"input,omitempty"`
	Refused bool           `json:"refused,omitempty"`
}

// FileBlock is a rule of the classifier of a PlanFile.
type FileBlock struct {
	Contains string `json:"contains"`
	Rule     string `json:"rule"`
}

// ReadAgent reads a PlanFile and gives its Agent. A file that is no plan
// file (no JSON, a field it does not know, no plan, a step with no tool, a
// block with no text or no rule) is an error that names what is wrong.
func ReadAgent(r io.Reader) (*Agent, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f PlanFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("the plan file is no JSON plan file: %v", err)
	}
	if len(f.Plans) == 0 {
		return nil, fmt.Errorf("the plan file has no plan")
	}
	a := &Agent{}
	for i, p := range f.Plans {
		plan := Plan{Name: p.Name, Text: p.Text}
		if plan.Name == "" {
			plan.Name = fmt.Sprintf("plan %d", i+1)
		}
		if when := p.When; when != "" {
			plan.When = func(prompt string) bool { return strings.Contains(prompt, when) }
		}
		for j, s := range p.Steps {
			if s.Tool == "" {
				return nil, fmt.Errorf("step %d of %s names no tool", j+1, plan.Name)
			}
			plan.Steps = append(plan.Steps, Step{Tool: s.Tool, Input: Fixed(s.Input), Refused: s.Refused})
		}
		a.Plans = append(a.Plans, plan)
	}
	for i, b := range f.Block {
		if b.Contains == "" || b.Rule == "" {
			return nil, fmt.Errorf("block %d needs the text of an action (contains) and a rule", i+1)
		}
	}
	blocks := f.Block
	a.Other = func(r *Request) Reply {
		if !IsClassifier(r) {
			return Reply{Text: "ok"}
		}
		action := ClassifiedAction(r)
		for _, b := range blocks {
			if strings.Contains(action, b.Contains) {
				return Verdict(90, b.Rule)
			}
		}
		return Verdict(5, "")
	}
	return a, nil
}
