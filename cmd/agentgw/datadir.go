package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
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

// secretFile is the action state secret a gateway made for itself, inside
// the data directory, when the environment gives none.
const secretFile = "state-secret"

// dataDirSecret returns the action state secret kept in the data
// directory, making a random one (0600) on the first start, so that
// actions signed before a restart still verify after it. Two gateways
// starting at once on one directory agree: the file appears whole (a hard
// link of a written temporary file) and the one that loses the race reads
// the winner's.
func dataDirSecret(dir string) ([]byte, error) {
	path := filepath.Join(dir, secretFile)
	if b, err := readSecret(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return b, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("making the action state secret: %w", err)
	}
	tmp, err := os.CreateTemp(dir, secretFile+".*") // 0600
	if err != nil {
		return nil, fmt.Errorf("making the action state secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(raw) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("making the action state secret: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("making the action state secret: %w", err)
	}
	return readSecret(path)
}

// readSecret reads a secret file; an empty one is an error, not a secret.
func readSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the action state secret: %w", err)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, fmt.Errorf("the action state secret %s is empty: delete it to make a new one", path)
	}
	return b, nil
}
