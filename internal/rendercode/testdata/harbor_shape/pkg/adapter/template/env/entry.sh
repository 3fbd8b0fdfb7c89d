# env/entry.sh
