/** The client port (plain or TLS, whichever the cluster runs) and the cluster bus port of every pod. */
export const CLIENT_PORT = 6379;
export const BUS_PORT = 16379;
