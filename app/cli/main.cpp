#include <iostream>
int main() { std::cout << "linkscope-cli\n"; return 0; }
