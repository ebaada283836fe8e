module github.com/zkl-project/zkl-go

go 1.22
