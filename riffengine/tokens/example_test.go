package tokens_test

import (
	"fmt"

	"github.com/como-technologies/riff/riffengine/tokens"
)

// A sign-in, a refresh whose write a crash lost, and the first refresh on
// the next instance, which takes the generation after the saved one.
func Example() {
	s := tokens.New(tokens.Options{})
	p1, _, _ := s.Start(tokens.Person{User: "mike", Email: "mike@example.com"}, "thumbprint", 12)
	saved, _ := s.Snapshot() // signins.json, generation 1
	p2, _ := s.Refresh(p1.Refresh, "thumbprint")

	next := tokens.New(tokens.Options{})
	dropped, _ := next.Load(saved, 20, func(user string) (bool, uint64) { return user == "mike", 0 })
	p3, err := next.Refresh(p2.Refresh, "thumbprint")
	_, chainGen, _, _ := tokens.ParseRefresh(p3.Refresh)
	fmt.Println(dropped.Total(), err, chainGen, next.LiveKeys("mike"))
	// Output: 0 <nil> 3 [thumbprint]
}
