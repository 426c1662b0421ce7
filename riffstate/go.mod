module github.com/como-technologies/riff/riffstate

go 1.26
