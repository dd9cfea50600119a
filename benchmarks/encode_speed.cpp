// Benchmark written with issue 4.
int main() { return 0; }
