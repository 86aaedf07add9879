# the compose file's order processors get a key the compose specification does not have
# kill: ./deploy TestComposeFile
# file: deploy/compose/compose.yaml
s#^      replicas: 2#      replica: 2#
