# a manifest's Deployment gets a field Kubernetes does not have
# kill: ./deploy TestKubernetesManifests
# file: deploy/kubernetes/stocktrader.yaml
s#^  sessionAffinity: None#  sessionAffinity: None\n  stickiness: none#
