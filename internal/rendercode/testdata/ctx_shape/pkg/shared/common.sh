cd /workspace/repo
