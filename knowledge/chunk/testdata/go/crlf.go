package main

import "fmt"

// main says hi.
func main() {
	fmt.Println("hi")
}

// Other does nothing.
func Other() {}
