"""The edge of mqtool: the click commands (main.py is the group), the operator shell
and its completion, batch runs and transcripts, and the real-time loop that serve and
the shell run. Nothing below the edge imports from here."""
