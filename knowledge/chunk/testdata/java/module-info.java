module com.example.shapes {
    requires java.base;
    exports com.example.shapes;
}
