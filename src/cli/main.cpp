// Placeholder entry point; the CLI lands with the walking skeleton.
int main() { return 0; }
