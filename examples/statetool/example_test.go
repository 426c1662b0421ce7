package main

import "fmt"

// Example runs the commands of statetool on riffstate alone and prints
// who: the same commands at the same times give the same rows.
func Example() {
	rows, err := run()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range rows {
		fmt.Println(row)
	}
	// Output:
	// refused: issue-12 is held by mike@pangolin:app (a6cf)
	// riff://ann@lynx/acme/app?session=b7d0&claim=issue-13 busy working on #13
	// riff://mike@pangolin/acme/app?session=a6cf&claim=issue-12 busy working on #12
}
