# bash completion for zkl (installed as share/bash-completion/completions/zkl)
_zkl() {
  local cur prev cmd i
  COMPREPLY=()
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  local commands="lock elect status leader revoke write fence-check help version"
  local common="--servers --session-timeout --connect-timeout --auth-file --auth --acl
    --tls-ca --tls-cert --tls-key --tls-key-password-file --tls-insecure-skip-hostname-check
    --sasl-mechanism --sasl-user --sasl-keytab --sasl-ccache --sasl-host --sasl-password-file --verbose --help"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  cmd=${COMP_WORDS[1]}
  # After "--", complete the command to run.
  for ((i = 2; i < COMP_CWORD; i++)); do
    if [ "${COMP_WORDS[i]}" = "--" ]; then
      if [ $((i + 1)) -eq "$COMP_CWORD" ]; then
        COMPREPLY=($(compgen -c -- "$cur"))
      else
        COMPREPLY=($(compgen -f -- "$cur"))
      fi
      return
    fi
  done
  case $prev in
    --auth-file|--tls-ca|--tls-cert|--tls-key|--tls-key-password-file|--sasl-keytab|--sasl-password-file|--metrics-file)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --acl) COMPREPLY=($(compgen -W "open creator" -- "$cur")); return ;;
    --sasl-mechanism) COMPREPLY=($(compgen -W "DIGEST-MD5 GSSAPI" -- "$cur")); return ;;
    --kind) COMPREPLY=($(compgen -W "fair read-write semaphore nonfair election-fair election-unfair" -- "$cur")); return ;;
    --servers|--session-timeout|--connect-timeout|--auth|--sasl-user|--timeout|--grace|--max-hold|--id|--semaphore|--leases|--holder|--put|--create|--set|--delete|--if-version)
      return ;;
  esac
  local opts
  case $cmd in
    lock) opts="--timeout --shared --read --exclusive --write --non-fair --semaphore --id --grace
            --stop-on-suspend --revocable --max-hold --metrics-file --foreground" ;;
    elect) opts="--fair --unfair --id --rejoin --grace --stop-on-suspend --foreground" ;;
    status) opts="--kind --leases --json --stats" ;;
    leader) opts="--fair --unfair --watch --terms --json" ;;
    revoke) opts="--holder --kind" ;;
    write) opts="--put --put-file --create --set --delete --if-version --kind --leases --timeout --id" ;;
    fence-check) opts="--kind" ;;
    help) COMPREPLY=($(compgen -W "lock elect status leader revoke write fence-check" -- "$cur")); return ;;
    *) return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts $common" -- "$cur"))
  fi
}
complete -F _zkl zkl
