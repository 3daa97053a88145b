package broken

func ok() int { return 1 }

func missingBrace() {
	if true {
		return
}

func after() {}
