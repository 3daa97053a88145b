public class Broken {
    void f() {
        if (x) {
    }
}
