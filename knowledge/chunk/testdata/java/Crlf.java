package x;

public class Crlf {
    int a;

    void f() {
    }
}
