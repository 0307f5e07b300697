// glibc (2.34+) declares this only under _GNU_SOURCE, which Swift's Glibc module is not built with.
#include <spawn.h>
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
