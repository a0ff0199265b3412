/* being written */
#include <stdio.h>
int main(void) { puts("being written"); return 77; }
