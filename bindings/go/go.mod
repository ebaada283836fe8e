module zkl.dev/zkl

go 1.22
