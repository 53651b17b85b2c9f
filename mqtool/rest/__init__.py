"""The MQ REST API stand-in: IBM mqweb's administrative (`/admin/qmgr`,
`/admin/action/qmgr/{qmgr}/mqsc`) and messaging (`/messaging/qmgr/{qmgr}/queue/{q}/message`)
resources over the z/TPF HTTP server's h11 machinery, so that curl, pymqrest, the Zowe MQ
plug-in and Ansible roles can be pointed at mqtool. It is an edge service: it runs
commands through the session (the language layer), which the engine never imports.

- `config`: the listener configuration `STATE/rest.yaml` (address, bounds, users and
  their mqweb roles, passwords hashed);
- `api`: the requests and their answers, independent of sockets;
- `server`: the connection class that serves them on the HTTP server;
- `service`: the service of the real-time loop (`mqtool serve`, the shell).
"""
