module github.com/como-technologies/riff/cmd

go 1.26
