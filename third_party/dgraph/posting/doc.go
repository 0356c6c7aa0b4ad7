/*
 * SPDX-FileCopyrightText: © Hypermode Inc. <hello@hypermode.com>
 * SPDX-License-Identifier: Apache-2.0
 */

// Package posting takes care of posting lists. It contains logic for mutation
// layers, merging them with BadgerDB, etc.
package posting
