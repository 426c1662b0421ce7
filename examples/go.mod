module github.com/como-technologies/riff/examples

go 1.26
