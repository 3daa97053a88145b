function broken() {
  const t = `never closed;
}
