let
  nixpkgs = builtins.fetchTarball "https://github.com/NixOS/nixpkgs/archive/f6d4e98b49a52fe564b832e20527b527fa2c90a6.tar.gz";
  pkgs = import nixpkgs { };
in pkgs.mkShell {
  buildInputs = with pkgs; [ python3Packages.torchWithRocm ];
}
