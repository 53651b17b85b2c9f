"""mqtool: mainframe messaging operator commands (z/TPF MQ, z/TPF HTTP, MQ for z/OS) on a workstation."""

__version__ = "0.1.0"
