package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestGivenBadFlagsWhenTheProviderStartsThenItSaysWhatIsWrongAndServesNothing:
// the email is needed, and the provider serves this machine only.
func TestGivenBadFlagsWhenTheProviderStartsThenItSaysWhatIsWrongAndServesNothing(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "--email is needed"},
		{[]string{"--email", "ada"}, `--email "ada" is no email`},
		{[]string{"--email", "ada@example.com", "--listen", "0.0.0.0:7879"}, "is not a loopback address"},
		{[]string{"--email", "ada@example.com", "more"}, "takes no argument"},
	} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), tt.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q) = %v; want an error with %q", tt.args, err, tt.want)
		}
		if out.Len() != 0 {
			t.Errorf("run(%q) printed %q; want nothing served", tt.args, out.String())
		}
	}
}
