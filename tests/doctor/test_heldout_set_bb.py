"""Held-out set BB (tests/data/real/1360-1364, HELDOUT.md): non-English pastes and threads.
Each miss's cause fixed from the program that prints the line: dpkg's own translations of 'Errors were encountered
while processing:' (guillemj/dpkg po/*.po), torch's Windows DLL loader (pytorch/pytorch torch/__init__.py
_load_dll_libraries) with Windows' message for the error code in the system's language before its English sentence;
tested on the fixtures, on other wordings of the same sources and on near-misses."""
from __future__ import annotations

import pytest

from rocm_wizard.detect import error_signatures
from rwtest.heldout import assert_named_and_leads, fixture, ids, lead_layer

DPKG = "s13bb_dpkg_errors_encountered_translated"
TORCH = "s13bb_torch_windows_dll_load_failed"


# -- dpkg's 'Errors were encountered while processing:' in the system's language (1364; 336 of set B) ---------------
def test_1364_dpkgs_german_report_is_named_and_leads_at_packaging():
    assert_named_and_leads("1364", DPKG, "packaging")


def test_336_dpkgs_russian_report_is_named_too():
    text = next(fixture("336").glob("*.txt")).read_text(encoding="utf-8")
    assert DPKG in ids(text)
    assert lead_layer(fixture("336")) == "packaging"


@pytest.mark.parametrize("line", [
    "Fehler traten auf beim Bearbeiten von:",                          # de (1364)
    "При обработке следующих пакетов произошли ошибки:",               # ru (336)
    "Des erreurs ont été rencontrées pendant l'exécution\u00a0:",      # fr, with the no-break space of fr.po
    "Des erreurs ont été rencontrées pendant l'exécution :",           # fr, a plain space after a copy-paste
    "Se encontraron errores al procesar:",                             # es
    "Erros foram encontrados durante o processamento de:",             # pt_BR
    "在处理时有错误发生：",                                               # zh_CN, a full-width colon
    "処理中にエラーが発生しました:",                                      # ja
    "처리하는데 오류가 발생했습니다:",                                     # ko
    "Wystąpiły błędy podczas przetwarzania:",                          # pl
    "  Při zpracování nastaly chyby:",                                 # cs, indented in a quote
])
def test_dpkgs_translations_are_named(line):
    assert DPKG in ids(line), line


@pytest.mark.parametrize("line", [
    "Errors were encountered while processing:",                       # English: dpkg_errors_encountered's
    "Trigger für man-db (2.7.5-1) werden verarbeitet ...",             # dpkg's German progress line
    "Ich bekomme immer: Fehler traten auf beim Bearbeiten von: amdgpu-dkms",  # prose quoting it mid-sentence
    "Se encontraron errores al procesar el archivo de configuración",  # another program's sentence
])
def test_near_misses_are_not_dpkgs_translated_report(line):
    assert DPKG not in ids(line), line


def test_the_english_report_keeps_its_own_row():
    assert "dpkg_errors_encountered" in ids("Errors were encountered while processing:")
    assert error_signatures.failure_layer(DPKG) == "packaging"


# -- torch's Windows DLL loader, Windows' message in any language (1361, 1363) ------------------------------------
def test_1361_torchs_dll_load_error_in_spanish_leads_at_framework():
    assert_named_and_leads("1361", TORCH, "framework")


def test_1363_a_title_naming_torch_and_windows_chinese_message_leads_at_framework():
    assert_named_and_leads("1363", TORCH, "framework")


@pytest.mark.parametrize("line", [
    # Japanese and Korean Windows, as torch prints it (observed in public notes of these errors)
    'OSError: [WinError 126] 指定されたモジュールが見つかりません。 Error loading "C:\\Users\\u\\AppData\\Local\\Programs\\Python\\'
    'Python312\\Lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.',
    'OSError: [WinError 126] 지정된 모듈을 찾을 수 없습니다. Error loading "c:\\Users\\u\\anaconda3\\envs\\stt_env\\lib\\'
    'site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
    # English, TheRock's gfx1151 wheels (ROCm/TheRock#1167)
    'The specified module could not be found. Error loading "C:\\Windows\\System32\\.venv\\Lib\\site-packages\\torch\\lib\\'
    'fbgemm.dll" or one of its dependencies.',
    # another error code through the same loader (ROCm/TheRock#1155)
    'OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "D:\\projects\\'
    'TheRock\\external-builds\\pytorch\\.venv\\Lib\\site-packages\\torch\\lib\\c10_hip.dll" or one of its dependencies.',
    # an entry point missing (127) in a Chinese locale
    'OSError: [WinError 127] 找不到指定的程序。 Error loading "E:\\venv\\Lib\\site-packages\\torch\\lib\\c10_cuda.dll" or one '
    'of its dependencies.',
    # a user's line naming torch, Windows' message and the DLL, without the code
    "import torch fails: Das angegebene Modul wurde nicht gefunden (shm.dll)",
])
def test_torchs_windows_dll_load_errors_are_named_at_framework(line):
    found = ids(line)
    assert TORCH in found, line
    assert "windows_dll_not_found" not in found, line


@pytest.mark.parametrize("line", [
    # another package's DLL: the generic Windows row, not torch's
    'OSError: [WinError 126] No se puede encontrar el módulo especificado. Error loading "C:\\app\\Lib\\site-packages\\'
    'onnxruntime\\capi\\onnxruntime_providers_shared.dll" or one of its dependencies.',
    "FileNotFoundError: Could not find module 'C:\\Users\\u\\llama_cpp\\llama.dll' (or one of its dependencies). Try using "
    "the full path with constructor syntax.",
    # torchvision's own extension, and a message with no DLL named
    "torchvision: 找不到指定的模块 image.pyd",
    "import torch: DLL load failed while importing _C: 找不到指定的模块。",
])
def test_near_misses_are_not_torchs_dll_loader(line):
    assert TORCH not in ids(line), line


def test_other_packages_winerror_lines_stay_with_the_windows_row():
    line = ('OSError: [WinError 126] Le module spécifié est introuvable. Error loading "C:\\app\\venv\\Lib\\site-packages\\'
            'ctranslate2\\ctranslate2.dll" or one of its dependencies.')
    assert "windows_dll_not_found" in ids(line)
    assert error_signatures.failure_layer(TORCH) == "framework"
