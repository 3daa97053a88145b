package chat

import (
	"errors"
	"fmt"

	"github.com/agentgw/agentgw/chat/collect"
	"github.com/agentgw/agentgw/contextvars"
)

// collectVars gathers the variables the command asks for, the way a plugin
// does, and returns notes on what could not be collected.
func collectVars(o chatOptions, vars []platformVar) (*contextvars.Set, []string) {
	set := &contextvars.Set{UserInputPrompt: o.prompt}
	var notes []string
	note := func(what string, err error) { notes = append(notes, fmt.Sprintf("%s not collected: %v", what, err)) }
	if o.file != "" && !declared(vars, contextvars.NameActiveEditor) {
		vars = append(vars, platformVar{Name: contextvars.NameActiveEditor})
	}
	for _, v := range vars {
		raw := v.ResolverOptions
		if raw == nil {
			raw = v.ResolveOptions
		}
		opts, _, _ := contextvars.ParseOptions(v.Name, raw)
		var err error
		switch v.Name {
		case contextvars.NameActiveEditor:
			set.ActiveEditor, err = collectEditor(o, opts)
		case contextvars.NameVCS:
			set.VCS, err = collect.VCS(o.dir)
		case contextvars.NameUserInfo:
			set.UserInfo, err = collect.UserInfo(o.dir)
		case contextvars.NamePackageFiles:
			n := 0
			if opts.MaximumNumber != nil {
				n = *opts.MaximumNumber
			}
			set.PackageFiles, err = collect.PackageFiles(o.dir, n)
		}
		if err != nil {
			note(v.Name, err)
		}
	}
	for _, r := range o.rules {
		set.GlobalPrompts = append(set.GlobalPrompts, contextvars.Prompt{Role: "system", Content: r})
	}
	return set, notes
}

func declared(vars []platformVar, name string) bool {
	for _, v := range vars {
		if v.Name == name {
			return true
		}
	}
	return false
}

func collectEditor(o chatOptions, opts contextvars.Options) (*contextvars.Editor, error) {
	if o.file == "" {
		return nil, errors.New("no --file given")
	}
	return collect.Editor(o.file, o.sel, opts)
}
