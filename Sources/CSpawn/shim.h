// glibc (2.34+) declares this only under _GNU_SOURCE, which Swift's Glibc module is not built with.
#include <spawn.h>
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
// the same holds for this flag (glibc's value): the child starts a session of its own
#define EARSHOT_POSIX_SPAWN_SETSID 0x80
