"""The MQ REST API stand-in: IBM mqweb's administrative (`/admin/qmgr`,
`/admin/action/qmgr/{qmgr}/mqsc`) and messaging (`/messaging/qmgr/{qmgr}/queue/{q}/message`)
resources over the z/TPF HTTP server's h11 machinery, so that curl, pymqrest, the Zowe MQ
plug-in and Ansible roles can be pointed at mqtool. It is an edge service: it runs
commands through the session (the language layer), which the engine never imports.

- `config`: the listener configuration `STATE/rest.yaml` (address, bounds, users with
  their mqweb roles and command grants, passwords hashed, the https files);
- `reply`: what answers are made of (`Reply`, IBM's error JSON as `RestError`);
- `build`: a runCommandJSON document as the parsed command, one value per parameter;
- `authority`: who may run which command (roles and grants in, a decision out);
- `api`: the requests and their answers, independent of sockets;
- `logins`: the same work for unknown users, and the throttle of failed logins;
- `tls`: the ssl context of https from PEM files;
- `console`: the listener's console lines;
- `server`: the connection class that serves them on the HTTP server (http or https);
- `service`: the service of the real-time loop (`mqtool serve`, the shell).
"""
