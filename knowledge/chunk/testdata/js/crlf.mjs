const a = 1;

function f() {
  return a;
}
