/* The pod sandbox's process (registry.k8s.io/pause:3.10 in the node's containerd): holds the pod's
   namespaces, reaps orphans, exits on SIGINT/SIGTERM. Compiled static by images.ts. */
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <stdlib.h>
static void bye(int s){ (void)s; _exit(0); }
static void reap(int s){ (void)s; while (waitpid(-1, 0, WNOHANG) > 0) {} }
int main(void){ signal(SIGINT,bye); signal(SIGTERM,bye); signal(SIGCHLD,reap); for(;;) pause(); }
