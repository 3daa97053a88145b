package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// dataDirName is the directory agentgw keeps its data in, inside the
// user's state directory.
const dataDirName = "agentgw"

// storeFile is the SQLite file of the default store, inside the data
// directory.
const storeFile = "agentgw.db"

// defaultDataDir is the user's state directory for agentgw on goos:
// $XDG_STATE_HOME/agentgw, else ~/.local/state/agentgw (the XDG base
// directory specification; os.UserConfigDir is the config directory, not
// this one); ~/Library/Application Support/agentgw on macOS;
// %LocalAppData%\agentgw on Windows. It reads the environment through
// getenv, so that a test without HOME cannot reach the real one.
func defaultDataDir(goos string, getenv func(string) string) (string, error) {
	switch goos {
	case "windows":
		dir := getenv("LocalAppData")
		if dir == "" {
			return "", errors.New("%LocalAppData% is not set: give a data directory with --data or AGENTGW_DATA")
		}
		return filepath.Join(dir, dataDirName), nil
	case "darwin", "ios":
		home, err := homeDir(goos, getenv)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support", dataDirName), nil
	}
	// XDG: a relative XDG_STATE_HOME is invalid and is ignored.
	if dir := getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, dataDirName), nil
	}
	home, err := homeDir(goos, getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state", dataDirName), nil
}

// homeDir is the user's home directory as os.UserHomeDir finds it, read
// through getenv.
func homeDir(goos string, getenv func(string) string) (string, error) {
	env := "HOME"
	if goos == "plan9" {
		env = "home"
	}
	home := getenv(env)
	if home == "" {
		return "", fmt.Errorf("$%s is not set: give a data directory with --data or AGENTGW_DATA", env)
	}
	return home, nil
}

// prepareDataDir creates the data directory (0700: paused runs and plan
// state may hold the user's code) and the store's file in it (0600) when
// they do not exist yet, and returns the file's path. Existing ones keep
// the modes they have.
func prepareDataDir(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the data directory: %w", err)
	}
	path := filepath.Join(dir, storeFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("creating the store file: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("creating the store file: %w", err)
	}
	return path, nil
}
